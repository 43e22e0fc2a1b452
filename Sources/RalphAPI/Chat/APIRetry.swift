/// The model API is being retried by the agent CLI (overloaded, rate limited, a network failure): the turn runs on,
/// nothing is lost, the person is told why nothing arrives.
public struct APIRetry: Codable, Hashable, Sendable {
    public var attempt: Int
    public var maxRetries: Int?
    /// What failed, as the CLI says it (`overloaded`, `rate_limit`, …).
    public var error: String
    /// The HTTP status of the failed request, when there was one.
    public var errorStatus: Int?
    /// How long the CLI waits before this attempt.
    public var retryDelayMs: Int?
    public var at: String

    public init(attempt: Int, maxRetries: Int?, error: String, errorStatus: Int?, retryDelayMs: Int?, at: String) {
        self.attempt = attempt
        self.maxRetries = maxRetries
        self.error = error
        self.errorStatus = errorStatus
        self.retryDelayMs = retryDelayMs
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case attempt, error, at
        case maxRetries = "max_retries"
        case errorStatus = "error_status"
        case retryDelayMs = "retry_delay_ms"
    }
}
