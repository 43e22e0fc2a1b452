import Foundation

/// The screen a notification (or a Live Activity) opens, from its `path` — a path of the web dashboard
/// (`/#/sessions/<id>`, `/#/chats/<id>`, `/#/approvals` …) that the app maps to its own screens.
public enum NotificationRoute: Hashable, Sendable, Identifiable {
    case session(String)
    case conversation(String)
    case section(AppSection)

    /// The route of `path`; the sessions list for a path this app does not know (a newer server's), never nothing.
    public init(path: String) {
        var rest = Substring(path)
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        if rest.hasPrefix("#") { rest = rest.dropFirst() }
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        let parts = rest.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/").map(String.init) } ?? []
        let id = parts.count > 1 ? parts[1].removingPercentEncoding ?? parts[1] : nil
        switch (parts.first, id) {
        case ("sessions"?, let id?), ("session"?, let id?): self = .session(id)
        case ("chats"?, let id?), ("conversations"?, let id?), ("chat"?, let id?): self = .conversation(id)
        case ("chats"?, nil), ("conversations"?, nil): self = .section(.conversations)
        case ("approvals"?, _): self = .section(.approvals)
        case ("settings"?, _): self = .section(.settings)
        case ("library"?, _): self = .section(.library)
        default: self = .section(.sessions)
        }
    }

    /// The route of a link into the app (`ralphmobile://open?path=/%23/sessions/<id>`, as a Live Activity opens it);
    /// nil for any other link.
    public init?(url: URL) {
        guard url.scheme == "ralphmobile", url.host == "open",
            let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "path" })?.value
        else { return nil }
        self.init(path: path)
    }

    public var id: String {
        switch self {
        case .session(let id): "session/" + id
        case .conversation(let id): "conversation/" + id
        case .section(let section): "section/" + section.rawValue
        }
    }

    /// Whether it opens one run or conversation (shown over its section), rather than a section alone.
    public var opensDetail: Bool {
        if case .section = self { return false }
        return true
    }

    /// The tab or sidebar entry the screen belongs to.
    public var section: AppSection {
        switch self {
        case .session: .sessions
        case .conversation: .conversations
        case .section(let section): section
        }
    }
}
