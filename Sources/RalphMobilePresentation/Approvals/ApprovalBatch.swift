import RalphAPI

/// What a batch decision did, one line per approval.
public struct ApprovalBatchResult: Hashable, Sendable {
    public struct Line: Hashable, Sendable, Identifiable {
        public let id: String
        public let applied: Bool
        /// `Bash touch a.txt — allowed`, or with the reason it was not applied.
        public let text: String
    }

    /// `2 of 3 allowed`.
    public let title: String
    public let lines: [Line]
}

/// What the batch sheet asks before deciding several approvals at once.
public struct ApprovalBatchConfirmation: Hashable, Sendable, Identifiable {
    public var id: String { decision.rawValue + ":" + lines.joined(separator: "\n") }
    public let decision: ApprovalDecision
    /// `Allow 3 tool calls?`.
    public let title: String
    /// `Bash  touch a.txt · Fix the tests`, one per approval.
    public let lines: [String]
    /// Deny asks for an optional message sent with each.
    public let asksForMessage: Bool
    public let confirmLabel: String
}
