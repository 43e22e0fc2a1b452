/// `POST /api/approvals/{id}`.
public struct ApprovalDecisionRequest: Codable, Hashable, Sendable {
    public var decision: ApprovalDecision
    /// Told to the agent with a deny.
    public var message: String?
    /// Replaces the tool's input with an allow.
    public var updatedInput: JSONValue?

    public init(decision: ApprovalDecision, message: String? = nil, updatedInput: JSONValue? = nil) {
        self.decision = decision
        self.message = message
        self.updatedInput = updatedInput
    }

    enum CodingKeys: String, CodingKey {
        case decision, message
        case updatedInput = "updated_input"
    }
}
