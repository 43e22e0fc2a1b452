public struct PermissionResolvedEvent: Codable, Hashable, Sendable {
    public var approvalId: String
    /// `allow`, `allow_session`, `deny`, or `cancelled` when the turn ended first.
    public var decision: String
    public var by: String?
    public var message: String?

    public init(approvalId: String, decision: String, by: String?, message: String? = nil) {
        self.approvalId = approvalId
        self.decision = decision
        self.by = by
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case decision, by, message
        case approvalId = "approval_id"
    }
}
