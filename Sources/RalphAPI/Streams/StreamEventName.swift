/// Event names and payloads of the SSE streams.
public enum StreamEventName {
    /// A ralph event on `GET /api/sessions/{id}/events`.
    public static let workflow = "workflow"
    /// Last frame of a session stream; clients must not reconnect after it.
    public static let end = "end"
    /// The run's events file was replaced or rewritten since the event a client resumed after: what it showed is
    /// history that no longer exists, and the new file's events follow from its first line (``StreamReset``).
    public static let reset = "reset"
    /// A session's detail on `GET /api/sessions/{id}/events?state=1`, sent after the replay and whenever it changes
    /// (the same JSON as `GET /api/sessions/{id}`), so clients need not re-fetch it during a live stream.
    public static let state = "state"
    /// Global stream (`GET /api/events`).
    public static let sessionAdded = "session.added"
    public static let sessionUpdated = "session.updated"
    public static let sessionRemoved = "session.removed"
    /// A host of a cluster came online, went offline or changed its name (data: ``HostInfo``); sessions of an
    /// offline host follow as `session.updated`, `unreachable`.
    public static let hostUpdated = "host.updated"
}
