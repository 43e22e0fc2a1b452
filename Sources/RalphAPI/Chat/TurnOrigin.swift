/// Who started a turn.
public enum TurnOrigin: String, Codable, Hashable, Sendable {
    /// A message sent through the API (a person, or an auto-reply loop).
    case user
    /// The agent CLI, by itself (e.g. after a background sub-agent finished).
    case agent
}
