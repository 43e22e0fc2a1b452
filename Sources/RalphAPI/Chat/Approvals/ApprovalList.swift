/// `GET /api/approvals`.
public struct ApprovalList: Codable, Hashable, Sendable {
    public var approvals: [Approval]
    public init(approvals: [Approval]) { self.approvals = approvals }
}
