/// An OpenAI-compatible endpoint that judges a reply (and may write the next prompt). Off unless set.
public struct JudgeSettings: Codable, Hashable, Sendable {
    /// e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended.
    public var baseUrl: String
    public var model: String
    /// The name of an environment variable of the server holding the API key (the key itself is never stored).
    public var apiKeyRef: String?
    /// Seconds before the rules are used instead (default 20).
    public var timeoutSecs: Double?

    public init(baseUrl: String, model: String, apiKeyRef: String? = nil, timeoutSecs: Double? = nil) {
        self.baseUrl = baseUrl
        self.model = model
        self.apiKeyRef = apiKeyRef
        self.timeoutSecs = timeoutSecs
    }

    enum CodingKeys: String, CodingKey {
        case model
        case baseUrl = "base_url"
        case apiKeyRef = "api_key_ref"
        case timeoutSecs = "timeout_secs"
    }
}
