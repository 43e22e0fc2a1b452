/// Data of the `reset` frame of a session stream. `topic` is there for the original RalphMobile client, which decodes
/// every `data:` line as an event.
public struct StreamReset: Codable, Hashable, Sendable {
    /// The id the client resumed after, which names an event the current file does not have.
    public var resumedAfter: String
    public var reason: String
    public var topic: String
    public var ts: String

    public init(resumedAfter: String, reason: String, ts: String) {
        self.resumedAfter = resumedAfter
        self.reason = reason
        self.topic = "stream.reset"
        self.ts = ts
    }

    enum CodingKeys: String, CodingKey {
        case reason, topic, ts
        case resumedAfter = "resumed_after"
    }
}
