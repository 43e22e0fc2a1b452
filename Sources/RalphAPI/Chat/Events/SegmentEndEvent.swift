/// The text streamed since the last segment is now the stored message `messageId`.
public struct SegmentEndEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var messageId: String
    public init(turnId: String, messageId: String) {
        self.turnId = turnId
        self.messageId = messageId
    }
    enum CodingKeys: String, CodingKey {
        case turnId = "turn_id"
        case messageId = "message_id"
    }
}
