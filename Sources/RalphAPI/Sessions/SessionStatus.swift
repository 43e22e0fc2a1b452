/// How a run stands, from the `loop.terminate` record when there is one.
public struct SessionStatus: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Started by this server; ralph has not created its events file yet.
    public static let starting = SessionStatus(rawValue: "starting")
    public static let running = SessionStatus(rawValue: "running")
    public static let paused = SessionStatus(rawValue: "paused")
    /// `loop.terminate` with reason `completed`.
    public static let completed = SessionStatus(rawValue: "completed")
    /// `loop.terminate` with a limit or failure reason (max_iterations, consecutive_failures, …).
    public static let failed = SessionStatus(rawValue: "failed")
    /// Interrupted or stopped, or the loop ended without writing `loop.terminate`.
    public static let stopped = SessionStatus(rawValue: "stopped")
    /// Alive, held by a lifecycle hook's suspension (ralph's own pause; see ``SessionMode/suspended``).
    public static let suspended = SessionStatus(rawValue: "suspended")
    /// The run's host is offline (``SessionMode/unreachable``).
    public static let unreachable = SessionStatus(rawValue: "unreachable")
}
