public enum ApprovalState: String, Codable, Hashable, Sendable {
    case pending
    case allowed
    case denied
    /// The turn ended (interrupt, crash, restart) before anyone answered.
    case cancelled
}
