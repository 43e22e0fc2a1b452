/// A message of a conversation: what a person sent, or one finished segment of the agent's reply with the tools it
/// called after it.
public struct ChatMessage: Codable, Hashable, Sendable {
    public var id: String
    public var conversationId: String
    public var turnId: String?
    public var role: MessageRole
    public var text: String
    public var toolCalls: [ToolCall]
    public var createdAt: String
    /// Cost and tokens of the whole turn, on the turn's last assistant message once the turn completed.
    public var costUsd: Double?
    public var usage: TokenUsage?

    public init(
        id: String, conversationId: String, turnId: String?, role: MessageRole, text: String, toolCalls: [ToolCall] = [], createdAt: String,
        costUsd: Double? = nil, usage: TokenUsage? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.turnId = turnId
        self.role = role
        self.text = text
        self.toolCalls = toolCalls
        self.createdAt = createdAt
        self.costUsd = costUsd
        self.usage = usage
    }

    enum CodingKeys: String, CodingKey {
        case id, role, text, usage
        case conversationId = "conversation_id"
        case turnId = "turn_id"
        case toolCalls = "tool_calls"
        case createdAt = "created_at"
        case costUsd = "cost_usd"
    }
}
