/// One finished iteration as ralph's RPC `iteration_end` event reported it (see ``RpcTelemetry``).
public struct RpcIteration: Codable, Hashable, Sendable {
    public var iteration: Int
    public var hat: String?
    public var durationMs: Int
    public var costUsd: Double
    public var inputTokens: Int
    public var outputTokens: Int
    public var cacheReadTokens: Int
    public var cacheWriteTokens: Int
    public var contextWindow: Int?
    public var contextTokens: Int?
    /// Whether the iteration emitted `LOOP_COMPLETE`.
    public var loopCompleteTriggered: Bool
    /// Whether an urgent steer was acknowledged while this iteration ran.
    public var steered: Bool

    public init(
        iteration: Int, hat: String? = nil, durationMs: Int, costUsd: Double, inputTokens: Int, outputTokens: Int, cacheReadTokens: Int = 0,
        cacheWriteTokens: Int = 0, contextWindow: Int? = nil, contextTokens: Int? = nil, loopCompleteTriggered: Bool = false, steered: Bool = false
    ) {
        self.iteration = iteration
        self.hat = hat
        self.durationMs = durationMs
        self.costUsd = costUsd
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheReadTokens = cacheReadTokens
        self.cacheWriteTokens = cacheWriteTokens
        self.contextWindow = contextWindow
        self.contextTokens = contextTokens
        self.loopCompleteTriggered = loopCompleteTriggered
        self.steered = steered
    }

    enum CodingKeys: String, CodingKey {
        case iteration, hat, steered
        case durationMs = "duration_ms"
        case costUsd = "cost_usd"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case cacheReadTokens = "cache_read_tokens"
        case cacheWriteTokens = "cache_write_tokens"
        case contextWindow = "context_window"
        case contextTokens = "context_tokens"
        case loopCompleteTriggered = "loop_complete_triggered"
    }
}
