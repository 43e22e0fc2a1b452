/// One message sent to the agent and everything it did about it.
public struct Turn: Codable, Hashable, Sendable {
    public var id: String
    public var conversationId: String
    public var text: String
    public var state: TurnState
    public var createdAt: String
    public var startedAt: String?
    public var endedAt: String?
    public var sessionId: String?
    public var costUsd: Double?
    public var usage: TokenUsage?
    public var durationMs: Int?
    public var stopReason: String?
    public var error: String?
    /// Who started it: a message sent to the conversation, or the agent by itself (then ``text`` says what woke it).
    public var origin: TurnOrigin

    public init(
        id: String, conversationId: String, text: String, state: TurnState, createdAt: String, startedAt: String? = nil, endedAt: String? = nil,
        sessionId: String? = nil, costUsd: Double? = nil, usage: TokenUsage? = nil, durationMs: Int? = nil, stopReason: String? = nil,
        error: String? = nil, origin: TurnOrigin = .user
    ) {
        self.id = id
        self.conversationId = conversationId
        self.text = text
        self.state = state
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.sessionId = sessionId
        self.costUsd = costUsd
        self.usage = usage
        self.durationMs = durationMs
        self.stopReason = stopReason
        self.error = error
        self.origin = origin
    }

    enum CodingKeys: String, CodingKey {
        case id, text, state, usage, error, origin
        case conversationId = "conversation_id"
        case createdAt = "created_at"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case sessionId = "session_id"
        case costUsd = "cost_usd"
        case durationMs = "duration_ms"
        case stopReason = "stop_reason"
    }
}
