/// One line of ``BatchApprovalResponse``.
public struct BatchApprovalResult: Codable, Hashable, Sendable {
    public var id: String
    /// The approval after the decision, when it was applied.
    public var approval: Approval?
    /// Why it was not applied (the error body of the single route).
    public var error: String?

    public init(id: String, approval: Approval?, error: String?) {
        self.id = id
        self.approval = approval
        self.error = error
    }
}
