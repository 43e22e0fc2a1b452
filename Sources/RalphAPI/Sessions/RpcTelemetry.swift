/// What ralph's RPC mode (`ralph run --rpc`) told the server about a run it started: cost, tokens and context-window
/// use per iteration, tool calls in progress, guidance acknowledgements and agent waves. Only runs this server started in RPC mode
/// have it (`rpc` in the session detail); discovered runs are read from their files alone and have none.
///
/// It lives in the server's memory: the events file stays the durable log, so after a server restart a run's
/// telemetry starts over empty (the channel to ralph is lost with the old server process).
public struct RpcTelemetry: Codable, Hashable, Sendable {
    /// Total cost of the finished iterations, in US dollars.
    public var costUsd: Double
    public var inputTokens: Int
    public var outputTokens: Int
    public var cacheReadTokens: Int
    public var cacheWriteTokens: Int
    /// The context window of the model, in tokens, as the latest finished iteration reported it.
    public var contextWindow: Int?
    /// Tokens of that window in use at the end of the latest finished iteration.
    public var contextTokens: Int?
    /// The iteration in progress (between `iteration_start` and `iteration_end`), if any.
    public var currentIteration: Int?
    /// The hat of the iteration in progress.
    public var currentHat: String?
    /// Finished iterations, oldest first (at most the latest 200).
    public var iterations: [RpcIteration]
    /// Tool calls started and not yet ended.
    public var toolCalls: [RpcToolCall]
    /// Guidance and steer acknowledgements, newest last (at most 20).
    public var acks: [RpcAck]
    /// Whether ralph's RPC output is still open (false once the process ended or the channel broke).
    public var connected: Bool
    /// ralph's `loop_terminated` reason, once it came.
    public var terminatedReason: String?
    /// The agent wave in progress, or the latest one (`wave_*` events).
    public var wave: RpcWave?

    public init(
        costUsd: Double = 0, inputTokens: Int = 0, outputTokens: Int = 0, cacheReadTokens: Int = 0, cacheWriteTokens: Int = 0,
        contextWindow: Int? = nil, contextTokens: Int? = nil, currentIteration: Int? = nil, currentHat: String? = nil,
        iterations: [RpcIteration] = [], toolCalls: [RpcToolCall] = [], acks: [RpcAck] = [], connected: Bool = true,
        terminatedReason: String? = nil, wave: RpcWave? = nil
    ) {
        self.costUsd = costUsd
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheReadTokens = cacheReadTokens
        self.cacheWriteTokens = cacheWriteTokens
        self.contextWindow = contextWindow
        self.contextTokens = contextTokens
        self.currentIteration = currentIteration
        self.currentHat = currentHat
        self.iterations = iterations
        self.toolCalls = toolCalls
        self.acks = acks
        self.connected = connected
        self.terminatedReason = terminatedReason
        self.wave = wave
    }

    /// The share of the context window in use (0…1), when both numbers are known.
    public var contextUse: Double? {
        guard let window = contextWindow, let used = contextTokens, window > 0 else { return nil }
        return Double(used) / Double(window)
    }

    enum CodingKeys: String, CodingKey {
        case iterations, acks, connected, wave
        case costUsd = "cost_usd"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case cacheReadTokens = "cache_read_tokens"
        case cacheWriteTokens = "cache_write_tokens"
        case contextWindow = "context_window"
        case contextTokens = "context_tokens"
        case currentIteration = "current_iteration"
        case currentHat = "current_hat"
        case toolCalls = "tool_calls"
        case terminatedReason = "terminated_reason"
    }
}
