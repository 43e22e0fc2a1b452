import RalphAPI
import RalphMobileKit

/// What ralph's RPC mode tells of a run the server started (``SessionDetail/rpc``): the cost so far, the context
/// window's use, tool calls in progress, the agent wave and the latest acknowledgement. Absent (nil section) for runs read from files
/// alone.
public struct RpcLiveSection: Sendable, Equatable {
    /// Cost, Tokens, Context (when reported).
    public var stats: [SectionStat]
    /// The context window's use, 0…1, for a gauge; nil before an iteration reported it.
    public var contextUse: Double?
    /// One line per tool call in progress.
    public var toolCalls: [String]
    /// The latest guidance or steer acknowledgement, in words.
    public var lastAck: String?
    /// The agent wave in progress or the latest one, in words.
    public var wave: String?

    public init?(_ rpc: RpcTelemetry?) {
        guard let rpc else { return nil }
        var stats = [SectionStat("Cost", RpcWords.cost(rpc)), SectionStat("Tokens", RpcWords.tokens(rpc))]
        if let context = RpcWords.context(rpc) { stats.append(SectionStat("Context", context, accessibilityLabel: "Context window: \(context)")) }
        self.stats = stats
        contextUse = rpc.contextUse
        toolCalls = RpcWords.toolCalls(rpc)
        lastAck = rpc.acks.last.map(RpcWords.ack)
        wave = RpcWords.wave(rpc)
    }
}
