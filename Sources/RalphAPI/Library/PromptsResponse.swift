public struct PromptsResponse: Codable, Hashable, Sendable {
    public var prompts: [PromptItem]
    public init(prompts: [PromptItem]) { self.prompts = prompts }
}
