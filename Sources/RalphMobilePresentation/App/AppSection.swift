/// The app's top-level screens: the tabs on an iPhone, the sidebar on an iPad (the web dashboard's tab bar).
public enum AppSection: String, CaseIterable, Identifiable, Sendable {
    case sessions
    /// The create-run wizard: a sidebar entry on an iPad for admins; on an iPhone it opens from the sessions list.
    case newRun
    case conversations
    case approvals
    case library
    case settings

    public var id: String { rawValue }

    public var title: String {
        switch self {
        case .sessions: "Sessions"
        case .newRun: "New run"
        case .conversations: "Chats"
        case .approvals: "Approvals"
        case .library: "Library"
        case .settings: "Settings"
        }
    }

    /// SF Symbol.
    public var systemImage: String {
        switch self {
        case .sessions: "bolt.horizontal.circle"
        case .newRun: "plus.circle"
        case .conversations: "bubble.left.and.bubble.right"
        case .approvals: "checkmark.shield"
        case .library: "books.vertical"
        case .settings: "gearshape"
        }
    }

    /// The tab bar on an iPhone: five tabs, as on the web dashboard (more would hide behind "More").
    public static func tabs(for capabilities: Capabilities) -> [AppSection] {
        [.sessions, .conversations, .approvals, .library, .settings]
    }

    /// The iPad sidebar: the tabs, and the create-run wizard for those who may start runs.
    public static func sidebar(for capabilities: Capabilities) -> [AppSection] {
        capabilities.canStartRuns ? [.sessions, .newRun, .conversations, .approvals, .library, .settings] : tabs(for: capabilities)
    }

    /// The badge of the approvals tab: the number waiting, `99+` above 99, none at zero.
    public static func approvalsBadge(pending count: Int) -> String? {
        switch count {
        case ..<1: nil
        case 1...99: String(count)
        default: "99+"
        }
    }

    /// What VoiceOver reads for the tab, with its badge.
    public func accessibilityLabel(pendingApprovals count: Int = 0) -> String {
        guard self == .approvals, count > 0 else { return title }
        return count == 1 ? "Approvals, 1 waiting" : "Approvals, \(count) waiting"
    }
}
