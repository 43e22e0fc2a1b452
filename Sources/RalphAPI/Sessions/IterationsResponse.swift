/// `GET /api/sessions/{id}/iterations`.
public struct IterationsResponse: Codable, Hashable, Sendable {
    public var iterations: [IterationItem]
    public var total: Int

    public init(iterations: [IterationItem], total: Int) {
        self.iterations = iterations
        self.total = total
    }
}
