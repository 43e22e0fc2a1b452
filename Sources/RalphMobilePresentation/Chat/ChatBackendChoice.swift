import Foundation
import RalphAPI

/// An agent the server can run conversations with (`GET /api/health`'s `agents`), as the new-conversation form offers
/// it: its name in words, its version, whether it can be used (and why not), and the permission modes it takes.
public struct ChatBackendChoice: Hashable, Sendable, Identifiable {
    /// The backend name sent as the request's `backend` (`claude`, `codex`).
    public let id: String
    /// `Claude Code`, `Codex`, or the name.
    public let title: String
    /// `Claude Code 2.1.330`.
    public let label: String
    /// Set when the server cannot run it: `Not available: looked for codex: …`. It is shown, disabled.
    public let unavailableText: String?
    /// The modes offered, the backend's default first (`default` for Claude Code, `untrusted` for Codex).
    public let permissionModes: [String]

    public var isUsable: Bool { unavailableText == nil }

    public init(_ agent: AgentInfo) {
        id = agent.name
        title = ChatBackendChoice.title(agent.name)
        // A server that has just started may still be asking the CLI about itself: that is no reason to refuse it (the
        // server waits for the answer when a conversation is created, and says then if it cannot run it).
        let checking = agent.error.map(ChatBackendChoice.isStillAsking) ?? false
        label = title + (agent.version.map { " " + $0 } ?? (checking ? " (still being checked)" : ""))
        unavailableText = checking ? nil : agent.error.map { "Not available: " + ChatBackendChoice.why($0, command: agent.command) }
        let first = ChatBackendChoice.defaultMode(agent.name)
        permissionModes = [first] + agent.permissionModes.filter { $0 != first && $0 != "default" }
    }

    /// For VoiceOver: `Codex 0.147.0`, or `Codex, not available: …`.
    public var accessibilityLabel: String { unavailableText.map { title + ", " + $0.prefix(1).lowercased() + $0.dropFirst() } ?? label }

    /// The mode a conversation of `backend` runs in when it names none: `default` (Claude Code's own), `untrusted`
    /// (Codex's: it asks before any command it does not know to be harmless, and before every patch).
    public static func defaultMode(_ backend: String) -> String { backend == "codex" ? "untrusted" : "default" }

    /// `Claude Code`, `Codex`; another name as it is.
    public static func title(_ backend: String) -> String {
        switch backend {
        case "claude": "Claude Code"
        case "codex": "Codex"
        default: backend
        }
    }

    /// Whether an agent's error only says the server is still asking it about itself (`still asking claude for its
    /// version`, what `/api/health` answers when the CLI is slow to reply).
    static func isStillAsking(_ error: String) -> Bool { error.hasPrefix("still asking ") }

    /// The agent's error with the command it looked for, unless it already names it.
    static func why(_ error: String, command: String) -> String {
        command.isEmpty || error.contains(command) ? error : "looked for \(command): \(error)"
    }
}
