/// `200` answer of `POST /api/config/import`.
public struct ConfigImportResponse: Codable, Hashable, Sendable {
    public var status: String
    /// The file written, relative to the workspace.
    public var path: String
    /// Where the previous file was kept, when there was one.
    public var backup: String?

    public init(status: String, path: String, backup: String?) {
        self.status = status
        self.path = path
        self.backup = backup
    }
}
