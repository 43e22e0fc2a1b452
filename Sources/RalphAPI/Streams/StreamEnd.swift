/// Data of the `end` frame.
///
/// `topic` is there for the original RalphMobile client, which decodes every `data:` line as an event.
public struct StreamEnd: Codable, Hashable, Sendable {
    public var mode: SessionMode
    public var status: SessionStatus
    public var reason: String?
    /// Id (line number) of the last event of the run.
    public var lastEventId: Int
    public var topic: String
    public var ts: String

    public init(mode: SessionMode, status: SessionStatus, reason: String?, lastEventId: Int, ts: String) {
        self.mode = mode
        self.status = status
        self.reason = reason
        self.lastEventId = lastEventId
        self.topic = "stream.end"
        self.ts = ts
    }

    enum CodingKeys: String, CodingKey {
        case mode, status, reason, topic, ts
        case lastEventId = "last_event_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mode, forKey: .mode)
        try c.encode(status, forKey: .status)
        try c.encode(reason, forKey: .reason)
        try c.encode(lastEventId, forKey: .lastEventId)
        try c.encode(topic, forKey: .topic)
        try c.encode(ts, forKey: .ts)
    }
}
