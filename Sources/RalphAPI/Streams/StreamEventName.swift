/// Event names and payloads of the SSE streams.
public enum StreamEventName {
    /// A ralph event on `GET /api/sessions/{id}/events`.
    public static let workflow = "workflow"
    /// Last frame of a session stream; clients must not reconnect after it.
    public static let end = "end"
    /// The run's events file was replaced or rewritten since the event a client resumed after: what it showed is
    /// history that no longer exists, and the new file's events follow from its first line (``StreamReset``).
    public static let reset = "reset"
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

/// The `id:` of a session stream frame: `<line>:<check>`, the event's line number in its run file and 8 hex digits
/// checking what that line holds (``check(ts:topic:)``). On resume the server reads that line again: a different check
/// means the file was replaced or rewritten since, and the client gets a `reset` frame and the new file from its start
/// instead of silently missing its first lines. A bare `<line>` (older clients, `?after=`) is still accepted.
public struct SessionEventID: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var check: UInt32?

    public init(line: Int, check: UInt32?) {
        self.line = line
        self.check = check
    }

    /// Parses `17:3fa2c901` or `17`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let line = Int(parts[0]), line >= 0 else { return nil }
        self.line = line
        if parts.count == 2 {
            guard parts[1].count == 8, let check = UInt32(parts[1], radix: 16) else { return nil }
            self.check = check
        } else {
            self.check = nil
        }
    }

    public var description: String {
        guard let check else { return String(line) }
        let hex = String(check, radix: 16)
        return "\(line):" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// FNV-1a over an event's `ts` and `topic`: timestamps are written to the nanosecond, so a line of a replaced or
    /// rewritten file differs from the line it replaced.
    public static func check(ts: String?, topic: String) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in (ts ?? "").utf8 + [0x1F] + topic.utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash
    }
}
