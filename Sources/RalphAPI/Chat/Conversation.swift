/// Conversations with an agent CLI (Claude Code first): the resources of `/api/conversations` and `/api/approvals`.
///
/// See `design/CHAT.md`. Ids are opaque strings; timestamps are `Timestamp.format` strings (UTC, milliseconds).

/// A conversation: one agent session in one working directory.
public struct Conversation: Codable, Hashable, Sendable {
    public var id: String
    public var title: String
    /// Whether the title was set by a person (then it is never replaced by a generated one).
    public var titleIsCustom: Bool
    /// Canonical working directory, inside a workspace root.
    public var cwd: String
    /// Backend name (`claude`).
    public var backend: String
    public var model: String?
    public var permissionMode: String?
    public var pinned: Bool
    public var archived: Bool
    public var createdAt: String
    public var updatedAt: String
    /// Time of the last message or turn change: the list is ordered by it, newest first.
    public var lastActivityAt: String
    /// The agent's own session id (`claude --resume <id>`), once known.
    public var sessionId: String?
    public var status: ConversationStatus
    /// Whether an agent process is running for it right now.
    public var processRunning: Bool
    /// Messages waiting for the running turn to end.
    public var queued: Int
    public var pendingApprovals: Int
    public var messageCount: Int
    public var totalCostUsd: Double
    public var usage: TokenUsage
    /// Start of the last message's text, for lists.
    public var lastMessagePreview: String?
    /// The agent CLI's version, as it reported it when it last started.
    public var agentVersion: String?
    /// The permission mode the agent CLI reports it is in now (it may differ from ``permissionMode``, which is what
    /// the conversation was created with: the agent can switch modes, e.g. leaving plan mode).
    public var agentPermissionMode: String?
    /// What "allow for this session" granted, oldest first; each can be revoked.
    public var sessionRules: [SessionRule]
    /// While ``status`` is `retrying`: the last retry the agent CLI reported.
    public var retry: APIRetry?
    /// The server whose machine runs the conversation's agent (``HostInfo/id``), and its name when the server knows it.
    public var hostId: String?
    public var host: String?

    public init(
        id: String, title: String, titleIsCustom: Bool = false, cwd: String, backend: String, model: String? = nil, permissionMode: String? = nil,
        pinned: Bool = false, archived: Bool = false, createdAt: String, updatedAt: String, lastActivityAt: String, sessionId: String? = nil,
        status: ConversationStatus = .idle, processRunning: Bool = false, queued: Int = 0, pendingApprovals: Int = 0, messageCount: Int = 0,
        totalCostUsd: Double = 0, usage: TokenUsage = TokenUsage(), lastMessagePreview: String? = nil, agentVersion: String? = nil,
        agentPermissionMode: String? = nil, sessionRules: [SessionRule] = [], retry: APIRetry? = nil, hostId: String? = nil, host: String? = nil
    ) {
        self.id = id
        self.title = title
        self.titleIsCustom = titleIsCustom
        self.cwd = cwd
        self.backend = backend
        self.model = model
        self.permissionMode = permissionMode
        self.pinned = pinned
        self.archived = archived
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastActivityAt = lastActivityAt
        self.sessionId = sessionId
        self.status = status
        self.processRunning = processRunning
        self.queued = queued
        self.pendingApprovals = pendingApprovals
        self.messageCount = messageCount
        self.totalCostUsd = totalCostUsd
        self.usage = usage
        self.lastMessagePreview = lastMessagePreview
        self.agentVersion = agentVersion
        self.agentPermissionMode = agentPermissionMode
        self.sessionRules = sessionRules
        self.retry = retry
        self.hostId = hostId
        self.host = host
    }

    enum CodingKeys: String, CodingKey {
        case id, title, cwd, backend, model, pinned, archived, status, queued, usage, retry, host
        case hostId = "host_id"
        case titleIsCustom = "title_is_custom"
        case permissionMode = "permission_mode"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case lastActivityAt = "last_activity_at"
        case sessionId = "session_id"
        case processRunning = "process_running"
        case pendingApprovals = "pending_approvals"
        case messageCount = "message_count"
        case totalCostUsd = "total_cost_usd"
        case lastMessagePreview = "last_message_preview"
        case agentVersion = "agent_version"
        case agentPermissionMode = "agent_permission_mode"
        case sessionRules = "session_rules"
    }
}
