/// `POST /api/approvals`: the same decision for several approvals.
public struct BatchApprovalRequest: Codable, Hashable, Sendable {
    public var ids: [String]
    public var decision: ApprovalDecision
    public var message: String?

    public init(ids: [String], decision: ApprovalDecision, message: String? = nil) {
        self.ids = ids
        self.decision = decision
        self.message = message
    }
}
