public enum TurnState: String, Codable, Hashable, Sendable {
    /// Accepted, waiting for the turn before it.
    case queued
    case running
    case complete
    /// Ended by an interrupt (or a steer).
    case interrupted
    /// The agent reported an error, crashed, or the server restarted during the turn.
    case error
}
