/// One point of the token sparkline.
public struct TokenSample: Codable, Hashable, Sendable {
    public var at: String?
    public var inputTokens: Int
    public var outputTokens: Int
    public var eventId: Int

    public init(at: String?, inputTokens: Int, outputTokens: Int, eventId: Int) {
        self.at = at
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.eventId = eventId
    }

    enum CodingKeys: String, CodingKey {
        case at
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case eventId = "event_id"
    }
}
