/// A tool call waiting for (or answered by) a person.
public struct Approval: Codable, Hashable, Sendable {
    public var id: String
    public var conversationId: String
    public var turnId: String
    public var toolUseId: String?
    public var toolName: String
    public var input: JSONValue
    /// The CLI's `permission_suggestions`, as it sent them, for information only: "allow for this session" grants
    /// ``sessionRule``, never these (they include permission modes and directories).
    public var suggestions: JSONValue
    /// What "allow for this session" grants: the narrowest rule covering this call.
    public var sessionRule: PermissionRule?
    /// The CLI's one-line description of the call (`description`), when it gave one.
    public var description: String?
    /// The tool's name as the CLI shows it (`display_name`).
    public var displayName: String?
    /// The path the call would touch, as the CLI names it when it asks (`blocked_path`; for 2.1.330 also inside the
    /// working directory).
    public var blockedPath: String?
    /// The CLI's `decision_reason`, when it gives one.
    public var reason: String?
    /// For a file edit (Claude's Write / Edit / MultiEdit, Codex's patch): what it will change, one unified diff per
    /// file against the file as it is on disk — recomputed whenever a pending approval is read.
    public var diffs: [FileDiff]?
    public var state: ApprovalState
    public var decision: ApprovalDecision?
    public var message: String?
    /// Who decided: a key id, `local` for a trusted loopback caller, `rule <id>` when a session rule allowed it, or
    /// `system` when cancelled.
    public var decidedBy: String?
    public var createdAt: String
    public var decidedAt: String?

    public init(
        id: String, conversationId: String, turnId: String, toolUseId: String?, toolName: String, input: JSONValue, suggestions: JSONValue = .array([]),
        sessionRule: PermissionRule? = nil, description: String? = nil, displayName: String? = nil, blockedPath: String? = nil, reason: String? = nil,
        diffs: [FileDiff]? = nil, state: ApprovalState = .pending, decision: ApprovalDecision? = nil, message: String? = nil, decidedBy: String? = nil,
        createdAt: String, decidedAt: String? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.turnId = turnId
        self.toolUseId = toolUseId
        self.toolName = toolName
        self.input = input
        self.suggestions = suggestions
        self.sessionRule = sessionRule
        self.description = description
        self.displayName = displayName
        self.blockedPath = blockedPath
        self.reason = reason
        self.diffs = diffs
        self.state = state
        self.decision = decision
        self.message = message
        self.decidedBy = decidedBy
        self.createdAt = createdAt
        self.decidedAt = decidedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, input, suggestions, reason, state, decision, message, description, diffs
        case sessionRule = "session_rule"
        case displayName = "display_name"
        case blockedPath = "blocked_path"
        case conversationId = "conversation_id"
        case turnId = "turn_id"
        case toolUseId = "tool_use_id"
        case toolName = "tool_name"
        case decidedBy = "decided_by"
        case createdAt = "created_at"
        case decidedAt = "decided_at"
    }
}
