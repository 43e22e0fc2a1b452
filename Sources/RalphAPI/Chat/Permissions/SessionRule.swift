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
