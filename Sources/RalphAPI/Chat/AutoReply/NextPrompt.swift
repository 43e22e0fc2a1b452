/// Where the next prompt comes from.
public struct NextPrompt: Codable, Hashable, Sendable {
    public enum Strategy: String, Codable, Hashable, Sendable {
        /// Always `text`.
        case fixed
        /// The judge writes it (falls back to `text` when it cannot).
        case judge
    }

    public var strategy: Strategy
    public var text: String?

    public init(strategy: Strategy = .fixed, text: String? = nil) {
        self.strategy = strategy
        self.text = text
    }

    /// `strategy` defaults to `fixed`, so `{"text": "…"}` is enough.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        strategy = try c.decodeIfPresent(Strategy.self, forKey: .strategy) ?? .fixed
        text = try c.decodeIfPresent(String.self, forKey: .text)
    }

    enum CodingKeys: String, CodingKey { case strategy, text }

    public static let defaultText =
        "Continue with the task. If everything is finished and verified, say TASK COMPLETE. If you are blocked and need a person, say NEED HUMAN INTERVENTION and why."
}
