import RalphAPI

/// The notification categories the app registers with iOS and the buttons each offers: the server's APNs payload
/// names the category (`aps.category`) of a notification that carries actions.
public struct NotificationCategory: Equatable, Sendable, Identifiable {
    /// One button.
    public struct Button: Equatable, Sendable, Identifiable {
        /// The `UNNotificationAction` identifier; also how a pressed button finds its ``NotificationAction``.
        public var identifier: String
        public var title: String
        /// The ``NotificationAction/action`` it carries out (`allow`, `deny`, `answer`, `resume`).
        public var action: String
        public var destructive: Bool
        /// A text field (`UNTextInputNotificationAction`).
        public var textInput: Bool
        public var sendTitle: String
        public var placeholder: String
        /// Decisions need the phone unlocked (Face ID), as in the app.
        public var requiresUnlock: Bool
        public var id: String { identifier }
    }

    public var identifier: String
    public var buttons: [Button]
    public var id: String { identifier }

    /// `RALPH_APPROVAL`: Allow, Deny.
    public static let approval = NotificationCategory(
        identifier: "RALPH_APPROVAL",
        buttons: [
            Button(identifier: "RALPH_ALLOW", title: "Allow", action: "allow", destructive: false, textInput: false, sendTitle: "", placeholder: "", requiresUnlock: true),
            Button(identifier: "RALPH_DENY", title: "Deny", action: "deny", destructive: true, textInput: false, sendTitle: "", placeholder: "", requiresUnlock: true),
        ])

    /// `RALPH_QUESTION`: Answer, with a text field.
    public static let question = NotificationCategory(
        identifier: "RALPH_QUESTION",
        buttons: [
            Button(
                identifier: "RALPH_ANSWER", title: "Answer", action: "answer", destructive: false, textInput: true, sendTitle: "Send",
                placeholder: "Your answer", requiresUnlock: true)
        ])

    /// `RALPH_SUSPENDED`: Resume (a run a lifecycle hook suspended).
    public static let suspended = NotificationCategory(
        identifier: "RALPH_SUSPENDED",
        buttons: [
            Button(identifier: "RALPH_RESUME", title: "Resume", action: "resume", destructive: false, textInput: false, sendTitle: "", placeholder: "", requiresUnlock: true)
        ])

    /// Every category the app registers at launch.
    public static let all = [approval, question, suspended]

    /// The category the server gives a message with actions (as its APNs payload does: ``NotificationKind/actionCategory``),
    /// nil for one without.
    public static func of(_ message: NotificationMessage) -> NotificationCategory? {
        guard !message.actions.isEmpty, let identifier = message.kind.actionCategory else { return nil }
        return all.first { $0.identifier == identifier }
    }

    /// The button with this identifier, in any category.
    public static func button(_ identifier: String) -> Button? {
        all.lazy.flatMap(\.buttons).first { $0.identifier == identifier }
    }
}
