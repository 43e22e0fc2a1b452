/// Why the loop stopped (or paused, for `showstopper`, `approval`, `confirmation`, `override`, `restart`).
public enum AutoReplyReason: String, Codable, Hashable, Sendable {
    case manual
    case completion
    case timeLimit = "time_limit"
    case messageLimit = "message_limit"
    case iterationLimit = "iteration_limit"
    case error
    case showstopper
    case stuck
    case lowConfidence = "low_confidence"
    case approval
    case confirmation
    case override
    case restart
    case deleted
}
