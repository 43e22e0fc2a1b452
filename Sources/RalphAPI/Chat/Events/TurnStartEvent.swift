public struct TurnStartEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var text: String
    /// The user message stored for this turn (none for a turn the agent started by itself).
    public var messageId: String?
    /// `agent` when the agent CLI started the turn by itself (``text`` then says what woke it); absent for a message
    /// sent to the conversation.
    public var origin: TurnOrigin?
    public init(turnId: String, text: String, messageId: String?, origin: TurnOrigin? = nil) {
        self.turnId = turnId
        self.text = text
        self.messageId = messageId
        self.origin = origin
    }
    enum CodingKeys: String, CodingKey {
        case text, origin
        case turnId = "turn_id"
        case messageId = "message_id"
    }
}
