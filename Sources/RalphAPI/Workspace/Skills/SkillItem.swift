/// A skill as the original API shows it.
public struct SkillItem: Codable, Hashable, Sendable {
    public var name: String
    public var description: String
    public var tags: [String]
    public var hats: [String]
    public var backends: [String]
    public var autoInject: Bool
    /// `built-in` or `file`.
    public var source: String
    /// The skill file, relative to its workspace (file skills).
    public var path: String?

    public init(name: String, description: String, tags: [String], hats: [String], backends: [String], autoInject: Bool, source: String, path: String?) {
        self.name = name
        self.description = description
        self.tags = tags
        self.hats = hats
        self.backends = backends
        self.autoInject = autoInject
        self.source = source
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case name, description, tags, hats, backends, source, path
        case autoInject = "auto_inject"
    }
}
