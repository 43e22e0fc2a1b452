/// Token counts of a turn or a conversation (the CLI's `usage`, summed).
public struct TokenUsage: Codable, Hashable, Sendable {
    public var inputTokens: Int
    public var outputTokens: Int
    public var cacheCreationInputTokens: Int
    public var cacheReadInputTokens: Int

    public init(inputTokens: Int = 0, outputTokens: Int = 0, cacheCreationInputTokens: Int = 0, cacheReadInputTokens: Int = 0) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheCreationInputTokens = cacheCreationInputTokens
        self.cacheReadInputTokens = cacheReadInputTokens
    }

    /// Reads the CLI's open `usage` map; missing or odd fields count as 0.
    public init(_ value: JSONValue?) {
        let object = value?.objectValue
        self.init(
            inputTokens: object?["input_tokens"]?.intValue ?? 0, outputTokens: object?["output_tokens"]?.intValue ?? 0,
            cacheCreationInputTokens: object?["cache_creation_input_tokens"]?.intValue ?? 0,
            cacheReadInputTokens: object?["cache_read_input_tokens"]?.intValue ?? 0
        )
    }

    public static func + (a: TokenUsage, b: TokenUsage) -> TokenUsage {
        TokenUsage(
            inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens,
            cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
            cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens
        )
    }

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case cacheCreationInputTokens = "cache_creation_input_tokens"
        case cacheReadInputTokens = "cache_read_input_tokens"
    }
}
