/// One ralph run, as listed by `GET /api/sessions` and returned by `GET /api/sessions/{id}/status`.
///
/// The original fields (`id`, `iteration`, `hat`, `started_at`, `total`, `elapsed_secs`, `mode`) keep their names and
/// types; the rest are additions the original client ignores.
public struct Session: Codable, Hashable, Sendable {
    /// 16 lowercase hex chars, a stable hash of the run file's absolute path.
    public var id: String
    /// Iteration of the latest orchestrator record (0 before the first one).
    public var iteration: Int
    /// `max_iterations` of the run's config, when known.
    public var total: Int?
    /// The hat at work: the hat triggered by the latest orchestrator record.
    public var hat: String?
    /// Seconds from the first event to now (live) or to the last event (finished).
    public var elapsedSecs: Int
    public var mode: SessionMode
    public var status: SessionStatus
    /// Time of the first event (or the events file name's timestamp), RFC 3339 UTC with milliseconds.
    public var startedAt: String
    public var lastEventAt: String?
    /// Number of events (well-formed lines) in the run file.
    public var eventCount: Int
    /// First line of the start event's payload.
    public var taskName: String?
    /// Directory of the workspace that holds the run, relative to its root (`.` for the root itself).
    public var workspace: String
    /// The run file, relative to its root.
    public var path: String
    /// Process id of the loop when known (lock holder or supervised process).
    public var pid: Int?
    /// A stop asked of the run: pending (`graceful`: "stopping at the end of this iteration") or, after the end, the
    /// one that happened. Nil when nobody asked.
    public var stopRequested: StopRequest?
    /// Set while a lifecycle hook holds the loop suspended (`mode: suspended`).
    public var suspension: Suspension?
    /// Who paused the run when `mode` is `paused`: `server` (our SIGSTOP). Nil otherwise.
    public var pausedBy: String?
    /// The topic that put the current hat to work (the original iOS app's hat-flow panel).
    public var triggerEvent: String?
    /// The current hat's `publishes` from the run's config (the one it was started with, else the workspace's).
    public var publishes: [String]?
    /// The server whose machine runs it: its name and id (``HostInfo``).
    public var host: String?
    public var hostId: String?
    /// False while its host is offline (then `mode` and `status` are `unreachable`); nil for a server on its own.
    public var reachable: Bool?

    public init(
        id: String, iteration: Int, total: Int?, hat: String?, elapsedSecs: Int, mode: SessionMode,
        status: SessionStatus, startedAt: String, lastEventAt: String?, eventCount: Int, taskName: String?,
        workspace: String, path: String, pid: Int?, stopRequested: StopRequest? = nil, suspension: Suspension? = nil,
        pausedBy: String? = nil, triggerEvent: String? = nil, publishes: [String]? = nil, host: String? = nil, hostId: String? = nil,
        reachable: Bool? = nil
    ) {
        self.id = id
        self.iteration = iteration
        self.total = total
        self.hat = hat
        self.elapsedSecs = elapsedSecs
        self.mode = mode
        self.status = status
        self.startedAt = startedAt
        self.lastEventAt = lastEventAt
        self.eventCount = eventCount
        self.taskName = taskName
        self.workspace = workspace
        self.path = path
        self.pid = pid
        self.stopRequested = stopRequested
        self.suspension = suspension
        self.pausedBy = pausedBy
        self.triggerEvent = triggerEvent
        self.publishes = publishes
        self.host = host
        self.hostId = hostId
        self.reachable = reachable
    }

    enum CodingKeys: String, CodingKey {
        case id, iteration, total, hat, mode, status, workspace, path, pid
        case elapsedSecs = "elapsed_secs"
        case startedAt = "started_at"
        case lastEventAt = "last_event_at"
        case eventCount = "event_count"
        case taskName = "task_name"
        case stopRequested = "stop_requested"
        case suspension
        case pausedBy = "paused_by"
        case triggerEvent = "trigger_event"
        case publishes, host, reachable
        case hostId = "host_id"
    }

    // Optional fields are written as explicit nulls, as the original server did for `hat` and `total`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(iteration, forKey: .iteration)
        try c.encode(total, forKey: .total)
        try c.encode(hat, forKey: .hat)
        try c.encode(elapsedSecs, forKey: .elapsedSecs)
        try c.encode(mode, forKey: .mode)
        try c.encode(status, forKey: .status)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(lastEventAt, forKey: .lastEventAt)
        try c.encode(eventCount, forKey: .eventCount)
        try c.encode(taskName, forKey: .taskName)
        try c.encode(workspace, forKey: .workspace)
        try c.encode(path, forKey: .path)
        try c.encode(pid, forKey: .pid)
        // Explicit nulls here too: a client merging a `session.updated` frame into what it had must see them cleared.
        try c.encode(stopRequested, forKey: .stopRequested)
        try c.encode(suspension, forKey: .suspension)
        try c.encode(pausedBy, forKey: .pausedBy)
        try c.encode(triggerEvent, forKey: .triggerEvent)
        try c.encode(publishes, forKey: .publishes)
        // A server on its own leaves its host out (older clients' golden bytes stay as they were).
        try c.encodeIfPresent(host, forKey: .host)
        try c.encodeIfPresent(hostId, forKey: .hostId)
        try c.encodeIfPresent(reachable, forKey: .reachable)
    }

    /// `paused_by` of a run the server paused.
    public static let pausedByServer = "server"
}
