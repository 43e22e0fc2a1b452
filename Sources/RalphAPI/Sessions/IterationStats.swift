/// Aggregate iteration figures for the detail screen.
public struct IterationStats: Codable, Hashable, Sendable {
    /// Number of iterations seen.
    public var count: Int
    public var current: Int
    /// `max_iterations`, when known.
    public var total: Int?
    /// Mean duration of finished iterations.
    public var averageDurationSecs: Double?
    /// Mean duration × remaining iterations, for live runs with a known total.
    public var estimatedRemainingSecs: Double?

    public init(count: Int, current: Int, total: Int?, averageDurationSecs: Double?, estimatedRemainingSecs: Double?) {
        self.count = count
        self.current = current
        self.total = total
        self.averageDurationSecs = averageDurationSecs
        self.estimatedRemainingSecs = estimatedRemainingSecs
    }

    enum CodingKeys: String, CodingKey {
        case count, current, total
        case averageDurationSecs = "average_duration_secs"
        case estimatedRemainingSecs = "estimated_remaining_secs"
    }
}
