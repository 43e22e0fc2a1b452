public enum MessageRole: String, Codable, Hashable, Sendable {
    case user, assistant, system
}
