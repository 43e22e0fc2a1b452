/// `POST /api/sessions/{id}/emit`.
public struct EmitRequest: Codable, Hashable, Sendable {
    public var topic: String
    /// Any JSON; written as given (`ralph emit` writes strings and objects).
    public var payload: JSONValue?

    public init(topic: String, payload: JSONValue? = nil) {
        self.topic = topic
        self.payload = payload
    }
}
