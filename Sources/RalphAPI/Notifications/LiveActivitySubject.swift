import Foundation

/// What a Live Activity is about: the parts that never change while it runs (ActivityKit's attributes).
public struct LiveActivitySubject: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable {
        case session
        case conversation
    }

    public var kind: Kind
    /// The run's or conversation's id.
    public var id: String
    /// The run's task or the conversation's title, shortened for the lock screen.
    public var title: String
    /// The screen a tap opens, as a dashboard path (`/#/sessions/<id>`), like a notification's.
    public var path: String

    public init(kind: Kind, id: String, title: String, path: String) {
        self.kind = kind
        self.id = id
        self.title = title
        self.path = path
    }

    /// A run: its task's first line (or its workspace), opening the session screen.
    public static func session(_ session: Session) -> LiveActivitySubject {
        let task = session.taskName?.split(separator: "\n").first.map(String.init)?.trimmingCharacters(in: .whitespaces)
        let title = (task?.isEmpty == false ? task! : "Run in \(session.workspace)")
        return LiveActivitySubject(kind: .session, id: session.id, title: LiveActivityContent.shorten(title, to: 60), path: "/#/sessions/\(session.id)")
    }

    /// A conversation: its title, opening the chat.
    public static func conversation(_ conversation: Conversation) -> LiveActivitySubject {
        let title = conversation.title.isEmpty ? "Conversation in \(conversation.cwd)" : conversation.title
        return LiveActivitySubject(
            kind: .conversation, id: conversation.id, title: LiveActivityContent.shorten(title, to: 60), path: "/#/chats/\(conversation.id)")
    }
}
