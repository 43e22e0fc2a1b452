/// `GET /api/presets` item.
public struct PresetItem: Codable, Hashable, Sendable {
    public var name: String
    public var path: String
    public var description: String

    public init(name: String, path: String, description: String) {
        self.name = name
        self.path = path
        self.description = description
    }
}
