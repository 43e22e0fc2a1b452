/// What "allow for this session" grants, the rules a conversation holds, and what the agent CLI reports about itself.
///
/// "Allow for this session" never hands the agent CLI a rule, a directory or a permission mode: the server keeps the
/// grant and answers the CLI's later requests that match it. So a grant means exactly what the approval sheet showed
/// (``PermissionRule/display``), is visible on the conversation (``Conversation/sessionRules``) and can be revoked at
/// once.

/// One kind of tool call: a tool, and the value one field of its input (or the whole input) must have.
public struct PermissionRule: Codable, Hashable, Sendable {
    public var toolName: String
    /// The input field compared (`command` for Bash, `file_path` for file tools, …); nil: the whole input must be equal.
    public var field: String?
    /// What that field (or the whole input) must equal.
    public var value: JSONValue
    /// How a person reads it, e.g. `Bash(swift test)`, `Edit(Sources/App.swift)`, `mcp__db__query (this exact input)`.
    public var display: String

    public init(toolName: String, field: String?, value: JSONValue, display: String) {
        self.toolName = toolName
        self.field = field
        self.value = value
        self.display = display
    }

    enum CodingKeys: String, CodingKey {
        case field, value, display
        case toolName = "tool_name"
    }
}

/// A ``PermissionRule`` a person granted for the rest of a conversation with "allow for this session".
public struct SessionRule: Codable, Hashable, Sendable {
    public var id: String
    public var rule: PermissionRule
    /// The approval it was granted on.
    public var approvalId: String
    /// Who granted it: a key id, or `local` for a trusted loopback caller.
    public var grantedBy: String
    public var grantedAt: String
    /// Tool calls it has allowed since, without asking.
    public var uses: Int
    public var lastUsedAt: String?

    public init(id: String, rule: PermissionRule, approvalId: String, grantedBy: String, grantedAt: String, uses: Int = 0, lastUsedAt: String? = nil) {
        self.id = id
        self.rule = rule
        self.approvalId = approvalId
        self.grantedBy = grantedBy
        self.grantedAt = grantedAt
        self.uses = uses
        self.lastUsedAt = lastUsedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, rule, uses
        case approvalId = "approval_id"
        case grantedBy = "granted_by"
        case grantedAt = "granted_at"
        case lastUsedAt = "last_used_at"
    }
}

/// The model API is being retried by the agent CLI (overloaded, rate limited, a network failure): the turn runs on,
/// nothing is lost, the person is told why nothing arrives.
public struct APIRetry: Codable, Hashable, Sendable {
    public var attempt: Int
    public var maxRetries: Int?
    /// What failed, as the CLI says it (`overloaded`, `rate_limit`, …).
    public var error: String
    /// The HTTP status of the failed request, when there was one.
    public var errorStatus: Int?
    /// How long the CLI waits before this attempt.
    public var retryDelayMs: Int?
    public var at: String

    public init(attempt: Int, maxRetries: Int?, error: String, errorStatus: Int?, retryDelayMs: Int?, at: String) {
        self.attempt = attempt
        self.maxRetries = maxRetries
        self.error = error
        self.errorStatus = errorStatus
        self.retryDelayMs = retryDelayMs
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case attempt, error, at
        case maxRetries = "max_retries"
        case errorStatus = "error_status"
        case retryDelayMs = "retry_delay_ms"
    }
}

/// An agent CLI as this server found it (`GET /api/health`'s `agents`).
public struct AgentInfo: Codable, Hashable, Sendable {
    /// Backend name (`claude`).
    public var name: String
    /// The command conversations run.
    public var command: String
    /// The version it reports (`claude --version`), nil when it could not be run.
    public var version: String?
    /// The `--permission-mode` values it accepts (read from its `--help`); what `permission_mode` may be set to.
    public var permissionModes: [String]
    /// Why it could not be asked, when it could not.
    public var error: String?

    public init(name: String, command: String, version: String?, permissionModes: [String], error: String?) {
        self.name = name
        self.command = command
        self.version = version
        self.permissionModes = permissionModes
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case name, command, version, error
        case permissionModes = "permission_modes"
    }
}

/// `permissions` event of a conversation: its permission mode as the agent CLI last reported it, and its session rules,
/// whenever either changes (a grant, a revocation, the agent switching modes).
public struct PermissionsEvent: Codable, Hashable, Sendable {
    public var permissionMode: String?
    public var sessionRules: [SessionRule]

    public init(permissionMode: String?, sessionRules: [SessionRule]) {
        self.permissionMode = permissionMode
        self.sessionRules = sessionRules
    }

    enum CodingKeys: String, CodingKey {
        case permissionMode = "permission_mode"
        case sessionRules = "session_rules"
    }
}

/// Who started a turn.
public enum TurnOrigin: String, Codable, Hashable, Sendable {
    /// A message sent through the API (a person, or an auto-reply loop).
    case user
    /// The agent CLI, by itself (e.g. after a background sub-agent finished).
    case agent
}
