/// `POST /api/memories/export`.
public struct MemoriesExport: Codable, Hashable, Sendable {
    public var content: String
    public var exportedAt: String
    /// `memories-YYYYMMDD-HHMMSS.md`.
    public var filename: String

    public init(content: String, exportedAt: String, filename: String) {
        self.content = content
        self.exportedAt = exportedAt
        self.filename = filename
    }

    enum CodingKeys: String, CodingKey {
        case content, filename
        case exportedAt = "exported_at"
    }
}
