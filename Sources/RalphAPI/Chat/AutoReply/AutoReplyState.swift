public enum AutoReplyState: String, Codable, Hashable, Sendable {
    case running, paused, stopped
}
