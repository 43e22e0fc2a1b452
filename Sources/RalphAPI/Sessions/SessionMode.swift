/// What the RalphMobile client keys on: `live` opens the event stream, anything else does not.
///
/// An open set (a struct, not an enum) so a client decoding a value a newer server adds does not fail.
public struct SessionMode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The run is the workspace's current run and its loop is alive.
    public static let live = SessionMode(rawValue: "live")
    /// The run was paused by this server (SIGSTOP).
    public static let paused = SessionMode(rawValue: "paused")
    /// Anything else: finished, stopped, crashed, or an older run of the workspace.
    public static let complete = SessionMode(rawValue: "complete")
    /// A lifecycle hook suspended the loop (`.ralph/suspend-state.json`); resume writes `.ralph/resume-requested`.
    public static let suspended = SessionMode(rawValue: "suspended")
    /// The run's host is offline: what it does now is not known (it is never shown as live).
    public static let unreachable = SessionMode(rawValue: "unreachable")
}
