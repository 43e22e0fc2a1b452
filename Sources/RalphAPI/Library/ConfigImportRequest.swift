/// `POST /api/config/import`.
public struct ConfigImportRequest: Codable, Hashable, Sendable {
    public var content: String
    public init(content: String) { self.content = content }
}
