/// `202` answer to ``SendMessageRequest``.
public struct SendMessageResponse: Codable, Hashable, Sendable {
    public var turnId: String
    /// 0 when the message is sent to the agent at once, else its place in the queue (1 = next).
    public var queuedPosition: Int

    public init(turnId: String, queuedPosition: Int) {
        self.turnId = turnId
        self.queuedPosition = queuedPosition
    }

    enum CodingKeys: String, CodingKey {
        case turnId = "turn_id"
        case queuedPosition = "queued_position"
    }
}
