/// What a notification may say on a lock screen.
public enum NotificationPrivacy: String, Codable, Hashable, Sendable, CaseIterable {
    /// The run or conversation's name, the tool and its input, the question.
    case full
    /// Only what kind of thing happened ("An approval is waiting"): no names, commands, paths or text.
    case `private`
}
