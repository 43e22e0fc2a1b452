import Foundation
import RalphAPI
import RalphMobileKit

/// The words the conversation screens use for a conversation's title, status and permission mode.
public enum ConversationWords {
    /// The title, or `Untitled conversation`.
    public static func title(_ conversation: Conversation?) -> String {
        guard let title = conversation?.title.trimmingCharacters(in: .whitespacesAndNewlines), !title.isEmpty else { return "Untitled conversation" }
        return title
    }

    /// `idle`, `running`, `needs approval`, `stalled`, `retrying`.
    public static func status(_ status: ConversationStatus) -> String {
        switch status {
        case .idle: "idle"
        case .running: "running"
        case .awaitingApproval: "needs approval"
        case .stalled: "stalled"
        case .retrying: "retrying"
        }
    }

    public static func tone(_ status: ConversationStatus) -> ChatTone {
        switch status {
        case .idle: .neutral
        case .running: .active
        case .awaitingApproval: .attention
        case .stalled, .retrying: .warning
        }
    }

    /// `Retrying the model API (attempt 3 of 10, HTTP 529): overloaded` (the SDK's words, which live on its main-actor model).
    @MainActor
    public static func retry(_ retry: APIRetry?) -> String {
        retry.map(ConversationModel.describe) ?? "Retrying the model API…"
    }

    /// `1 approval`, `3 approvals`.
    public static func approvals(_ count: Int) -> String { count == 1 ? "1 approval" : "\(count) approvals" }

    /// What each permission mode of Claude Code (and each approval policy of Codex) means.
    public static let permissionModes: [String: String] = [
        "default": "asks before edits, commands and network",
        "untrusted": "asks before any command not known to be harmless, and before every file change (Codex's default)",
        "on-request": "Codex decides when to ask",
        "never": "never asks; what fails is not retried with approval (risky)",
        "manual": "the same as default, under its newer name",
        "acceptEdits": "file edits and simple file commands run without asking",
        "plan": "reads and plans only, no changes",
        "auto": "a classifier model approves instead of you",
        "dontAsk": "whatever is not already allowed is refused, nobody is asked",
        "bypassPermissions": "every tool runs without asking (risky)",
    ]

    /// `plan — reads and plans only, no changes`; an unknown mode as it is.
    public static func permissionMode(_ mode: String) -> String {
        permissionModes[mode].map { mode + " — " + $0 } ?? mode
    }

    /// What the connection of a live screen is doing: `live`, `connecting…`, `reconnecting (attempt 3)`, `offline`, or the error.
    public static func connection(_ state: ConnectionState) -> String {
        switch state {
        case .connected: "live"
        case .connecting: "connecting…"
        case .reconnecting(let attempt): "reconnecting (attempt \(attempt))"
        case .disconnected: "offline"
        case .error(let message): "stopped: " + message
        }
    }

    public static func connectionTone(_ state: ConnectionState) -> ChatTone {
        switch state {
        case .connected: .success
        case .connecting, .reconnecting: .warning
        case .disconnected: .neutral
        case .error: .danger
        }
    }
}
