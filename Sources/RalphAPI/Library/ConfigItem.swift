/// `GET /api/configs` item.
public struct ConfigItem: Codable, Hashable, Sendable {
    /// Relative to the workspace (`presets/feature.yml`, `ralph.yml`).
    public var path: String
    public var name: String
    /// The file's first line when it is a `#` comment.
    public var description: String

    public init(path: String, name: String, description: String) {
        self.path = path
        self.name = name
        self.description = description
    }
}
