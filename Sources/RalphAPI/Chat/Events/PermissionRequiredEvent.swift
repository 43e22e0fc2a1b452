public struct PermissionRequiredEvent: Codable, Hashable, Sendable {
    public var approvalId: String
    public var turnId: String
    public var toolUseId: String?
    public var toolName: String
    public var input: JSONValue
    /// The CLI's suggestions as sent, for information only; "allow for this session" grants ``sessionRule``.
    public var suggestions: JSONValue
    public var expiresAt: String?
    /// What "allow for this session" grants.
    public var sessionRule: PermissionRule?
    public var description: String?
    public var displayName: String?
    public var blockedPath: String?
    public var reason: String?
    /// What a file edit will change (see ``Approval/diffs``).
    public var diffs: [FileDiff]?

    public init(
        approvalId: String, turnId: String, toolUseId: String?, toolName: String, input: JSONValue, suggestions: JSONValue, expiresAt: String? = nil,
        sessionRule: PermissionRule? = nil, description: String? = nil, displayName: String? = nil, blockedPath: String? = nil, reason: String? = nil,
        diffs: [FileDiff]? = nil
    ) {
        self.approvalId = approvalId
        self.turnId = turnId
        self.toolUseId = toolUseId
        self.toolName = toolName
        self.input = input
        self.suggestions = suggestions
        self.expiresAt = expiresAt
        self.sessionRule = sessionRule
        self.description = description
        self.displayName = displayName
        self.blockedPath = blockedPath
        self.reason = reason
        self.diffs = diffs
    }

    /// The event announcing `approval`.
    public init(_ approval: Approval) {
        self.init(
            approvalId: approval.id, turnId: approval.turnId, toolUseId: approval.toolUseId, toolName: approval.toolName, input: approval.input,
            suggestions: approval.suggestions, sessionRule: approval.sessionRule, description: approval.description, displayName: approval.displayName,
            blockedPath: approval.blockedPath, reason: approval.reason, diffs: approval.diffs
        )
    }

    enum CodingKeys: String, CodingKey {
        case input, suggestions, description, reason, diffs
        case sessionRule = "session_rule"
        case displayName = "display_name"
        case blockedPath = "blocked_path"
        case approvalId = "approval_id"
        case turnId = "turn_id"
        case toolUseId = "tool_use_id"
        case toolName = "tool_name"
        case expiresAt = "expires_at"
    }
}
