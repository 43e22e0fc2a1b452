public struct CompleteEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var sessionId: String?
    public var costUsd: Double?
    public var usage: TokenUsage
    public var durationMs: Int?
    /// `end_turn`, `interrupted`, `max_turns`, … as the agent reported it.
    public var stopReason: String?
    /// The turn's last stored assistant message, if it wrote any text after its last tool.
    public var messageId: String?

    public init(turnId: String, sessionId: String?, costUsd: Double?, usage: TokenUsage, durationMs: Int?, stopReason: String?, messageId: String?) {
        self.turnId = turnId
        self.sessionId = sessionId
        self.costUsd = costUsd
        self.usage = usage
        self.durationMs = durationMs
        self.stopReason = stopReason
        self.messageId = messageId
    }

    enum CodingKeys: String, CodingKey {
        case usage
        case turnId = "turn_id"
        case sessionId = "session_id"
        case costUsd = "cost_usd"
        case durationMs = "duration_ms"
        case stopReason = "stop_reason"
        case messageId = "message_id"
    }
}
