/// A loop suspended by one of ralph's lifecycle hooks (`.ralph/suspend-state.json`, written when a hook with
/// `on_error: suspend` fires). The loop waits for `.ralph/resume-requested` (or retries, per ``suspendMode``); this is
/// ralph's own pause, distinct from the server's SIGSTOP pause (`paused_by: "server"`).
public struct Suspension: Codable, Hashable, Sendable {
    /// The hook that suspended the loop (`ci-gate`).
    public var hookName: String
    /// The lifecycle phase the hook ran in (`pre.iteration.start`).
    public var phase: String
    /// Why (`hook exited 2`).
    public var reason: String?
    /// `wait_for_resume`, `retry_backoff` or `wait_then_retry`.
    public var suspendMode: String
    /// When the loop was suspended (ralph's `suspended_at`).
    public var since: String?
    /// ralph's loop id (`primary-20260620-095959`).
    public var loopId: String?

    public init(hookName: String, phase: String, reason: String?, suspendMode: String, since: String?, loopId: String? = nil) {
        self.hookName = hookName
        self.phase = phase
        self.reason = reason
        self.suspendMode = suspendMode
        self.since = since
        self.loopId = loopId
    }

    enum CodingKeys: String, CodingKey {
        case phase, reason, since
        case hookName = "hook_name"
        case suspendMode = "suspend_mode"
        case loopId = "loop_id"
    }
}
