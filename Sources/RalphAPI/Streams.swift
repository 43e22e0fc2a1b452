/// Event names and payloads of the SSE streams.
public enum StreamEventName {
    /// A ralph event on `GET /api/sessions/{id}/events`.
    public static let workflow = "workflow"
    /// Last frame of a session stream; clients must not reconnect after it.
    public static let end = "end"
    /// Global stream (`GET /api/events`).
    public static let sessionAdded = "session.added"
    public static let sessionUpdated = "session.updated"
    public static let sessionRemoved = "session.removed"
}

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

/// Data of `session.removed`.
public struct SessionRemoved: Codable, Hashable, Sendable {
    public var id: String
    public init(id: String) { self.id = id }
}
