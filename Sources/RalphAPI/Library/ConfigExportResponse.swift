/// `POST /api/config/export`.
public struct ConfigExportResponse: Codable, Hashable, Sendable {
    public var content: String
    /// `ralph.yml` or `ralph.yaml`.
    public var filename: String

    public init(content: String, filename: String) {
        self.content = content
        self.filename = filename
    }
}
