import RalphAPI

/// What the person using the app may do on the server it is connected to, from the role of their key (`GET /api/whoami`).
/// The app shows a control only when its capability is true; the server enforces the same rules (a `403` still reaches
/// the screen as an error if a role changed meanwhile).
public struct Capabilities: Equatable, Sendable {
    public let role: Role

    public init(role: Role) { self.role = role }

    /// Read sessions, events, the library, conversations and approvals: every role.
    public var canRead: Bool { true }
    /// Pause and resume a run, emit an event into it, steer it, answer its questions (operator).
    public var canSteer: Bool { role.includes(.operator) }
    /// Start conversations, send messages, interrupt, pin, archive, delete (operator).
    public var canChat: Bool { role.includes(.operator) }
    /// Allow or deny a tool call, revoke a session rule (operator).
    public var canDecideApprovals: Bool { role.includes(.operator) }
    /// Configure, start, pause and stop auto-reply (operator).
    public var canControlAutoReply: Bool { role.includes(.operator) }
    /// Start a run (`POST /api/sessions`), from the wizard or from the library (admin).
    public var canStartRuns: Bool { role.includes(.admin) }
    /// Stop a run (admin).
    public var canStopRuns: Bool { role.includes(.admin) }
    /// Write files under the workspaces: memories, tasks, config import, merges (admin).
    public var canWriteFiles: Bool { role.includes(.admin) }
    /// Create, list and revoke API keys (admin).
    public var canManageKeys: Bool { role.includes(.admin) }
}
