public struct BatchApprovalResponse: Codable, Hashable, Sendable {
    public var results: [BatchApprovalResult]
    public init(results: [BatchApprovalResult]) { self.results = results }
}
