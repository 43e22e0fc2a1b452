public enum SendMode: String, Codable, Hashable, Sendable {
    /// Wait for the running turn to end (the default).
    case queue
    /// Interrupt the running turn and send this message next.
    case steer
}
