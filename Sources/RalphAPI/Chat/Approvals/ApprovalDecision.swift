public enum ApprovalDecision: String, Codable, Hashable, Sendable, CaseIterable {
    /// Allow this call, with the original (or the given) input.
    case allow
    /// Allow this call, and calls matching the approval's ``Approval/sessionRule`` for the rest of the conversation
    /// (and nothing more: no permission mode, no directory).
    case allowSession = "allow_session"
    case deny
}
