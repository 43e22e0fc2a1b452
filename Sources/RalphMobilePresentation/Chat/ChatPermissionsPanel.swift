import Foundation
import RalphAPI

/// The Permissions panel of a conversation: the mode the agent reports it is in, the Claude Code version, and what
/// "allow for this session" granted, each rule with who granted it, how often it was used, and Revoke for operators.
public struct ChatPermissionsPanel: Hashable, Sendable {
    public struct Rule: Hashable, Sendable, Identifiable {
        public let id: String
        /// `Bash(touch a.txt)`.
        public let display: String
        /// `you` for a rule the caller's key granted, else the key id (`local` on a trusted loopback server).
        public let grantedBy: String
        public let grantedAt: String
        public let uses: Int
        public let lastUsedAt: String?

        /// `not used yet`, `used once`, `used 3 times, last 5m ago`.
        public func usesText(now: Date) -> String {
            let count = uses == 0 ? "not used yet" : uses == 1 ? "used once" : "used \(uses) times"
            guard uses > 0, let lastUsedAt else { return count }
            return count + ", last " + ChatFormat.relativeTime(lastUsedAt, now: now)
        }

        /// `granted by you 5m ago · used once`.
        public func detail(now: Date) -> String {
            "granted by \(grantedBy) \(ChatFormat.relativeTime(grantedAt, now: now)) · \(usesText(now: now))"
        }

        public var revokeLabel: String { "Revoke" }
        public var revokeAccessibilityLabel: String { "Revoke " + display }
    }

    /// The mode the agent reports (or the one the conversation was created with, or `default`).
    public let mode: String
    /// The mode it was created with, when the agent has since switched to another.
    public let createdWith: String?
    public let agentVersion: String?
    public let rules: [Rule]
    public let canRevoke: Bool

    /// - Parameters:
    ///   - agentMode: what the agent reports now (`agent_permission_mode`, or a `permissions` event).
    ///   - createdMode: the conversation's `permission_mode`.
    ///   - me: the caller's key id, so its own grants say `you`.
    public init(agentMode: String?, createdMode: String?, agentVersion: String?, rules: [SessionRule], me: String?, canRevoke: Bool) {
        mode = agentMode ?? createdMode ?? "default"
        createdWith = agentMode != nil && createdMode != nil && agentMode != createdMode ? createdMode : nil
        self.agentVersion = agentVersion
        self.rules = rules.map {
            Rule(
                id: $0.id, display: $0.rule.display, grantedBy: me != nil && $0.grantedBy == me ? "you" : $0.grantedBy.isEmpty ? "someone" : $0.grantedBy,
                grantedAt: $0.grantedAt, uses: $0.uses, lastUsedAt: $0.lastUsedAt
            )
        }
        self.canRevoke = canRevoke
    }

    /// `default · 1 session rule`: the panel's closed line.
    public var summary: String { mode + " · " + (rules.count == 1 ? "1 session rule" : "\(rules.count) session rules") }

    /// `Permissions: default · 1 session rule`, for the button that opens the panel.
    public var accessibilityLabel: String { "Permissions: " + summary }

    /// `acceptEdits — file edits … run without asking (created with default)`.
    public var modeText: String { ConversationWords.permissionMode(mode) + (createdWith.map { " (created with \($0))" } ?? "") }

    /// The version, or `not started yet`.
    public var versionText: String { agentVersion ?? "not started yet" }

    /// Under the list: how rules come to be when there are none, or that only operators revoke.
    public var footnote: String? {
        if rules.isEmpty {
            return "None. “Allow … for this session” on an approval lists that exact call here; it then runs without asking until it is revoked."
        }
        return canRevoke ? nil : "An operator can revoke these."
    }

    /// Said when a rule has been revoked.
    public static func revokedNotice(_ display: String) -> String { "Revoked \(display): it asks again next time." }
}
