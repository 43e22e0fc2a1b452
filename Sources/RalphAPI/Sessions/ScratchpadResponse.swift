/// `GET /api/sessions/{id}/scratchpad`.
public struct ScratchpadResponse: Codable, Hashable, Sendable {
    public var content: String
    /// File modification time; null when the file does not exist.
    public var updatedAt: String?
    /// The scratchpad file, relative to the run's root.
    public var path: String

    public init(content: String, updatedAt: String?, path: String) {
        self.content = content
        self.updatedAt = updatedAt
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case content, path
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(content, forKey: .content)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(path, forKey: .path)
    }
}
