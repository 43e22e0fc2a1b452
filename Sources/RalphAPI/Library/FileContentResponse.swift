/// `GET /api/configs/{path}` and `GET /api/prompts/{path}`.
public struct FileContentResponse: Codable, Hashable, Sendable {
    public var path: String
    public var content: String
    /// `yaml` or `markdown`.
    public var contentType: String

    public init(path: String, content: String, contentType: String) {
        self.path = path
        self.content = content
        self.contentType = contentType
    }

    enum CodingKeys: String, CodingKey {
        case path, content
        case contentType = "content_type"
    }
}
