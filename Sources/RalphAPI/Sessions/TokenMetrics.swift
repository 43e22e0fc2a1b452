/// Token usage summed over the events that report it (`usage.input_tokens`, `total_cost_usd`, …).
public struct TokenMetrics: Codable, Hashable, Sendable {
    public var inputTokens: Int
    public var outputTokens: Int
    public var cacheReadTokens: Int
    public var cacheCreationTokens: Int
    public var costUsd: Double?
    /// Number of events that reported usage.
    public var reports: Int
    /// The most recent reports, oldest first (at most 60).
    public var samples: [TokenSample]

    public init(
        inputTokens: Int = 0, outputTokens: Int = 0, cacheReadTokens: Int = 0, cacheCreationTokens: Int = 0, costUsd: Double? = nil,
        reports: Int = 0, samples: [TokenSample] = []
    ) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheReadTokens = cacheReadTokens
        self.cacheCreationTokens = cacheCreationTokens
        self.costUsd = costUsd
        self.reports = reports
        self.samples = samples
    }

    enum CodingKeys: String, CodingKey {
        case reports, samples
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case cacheReadTokens = "cache_read_tokens"
        case cacheCreationTokens = "cache_creation_tokens"
        case costUsd = "cost_usd"
    }
}
