/// `200` answer of `POST /api/sessions/{id}/emit`.
public struct EmitResponse: Codable, Hashable, Sendable {
    public var success: Bool
    public var topic: String
    public var timestamp: String
    /// The new event's id (its line number), as the stream sends it.
    public var id: String

    public init(success: Bool, topic: String, timestamp: String, id: String) {
        self.success = success
        self.topic = topic
        self.timestamp = timestamp
        self.id = id
    }
}
