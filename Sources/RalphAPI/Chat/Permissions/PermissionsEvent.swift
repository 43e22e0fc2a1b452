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
