/// `200` answer of `POST /api/sessions/{id}/emit`.
public struct EmitResponse: Codable, Hashable, Sendable {
    public var success: Bool
    public var topic: String
    public var timestamp: String
    /// The new event's id (its line number), as the stream sends it.
    public var id: String
    /// For the original app's signal topics (`user.pause`, `user.abort`, `user.guidance`, `user.priority`): what was
    /// done besides recording the event ("paused", "stopping at the end of this iteration", …); absent otherwise.
    public var done: String?

    public init(success: Bool, topic: String, timestamp: String, id: String, done: String? = nil) {
        self.success = success
        self.topic = topic
        self.timestamp = timestamp
        self.id = id
        self.done = done
    }
}
