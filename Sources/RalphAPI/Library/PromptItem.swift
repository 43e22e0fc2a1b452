/// `GET /api/prompts` item.
public struct PromptItem: Codable, Hashable, Sendable {
    public var path: String
    public var name: String
    /// First non-blank line, cut to 50 bytes (`…` marks a cut).
    public var preview: String

    public init(path: String, name: String, preview: String) {
        self.path = path
        self.name = name
        self.preview = preview
    }
}
