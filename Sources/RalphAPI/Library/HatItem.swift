/// `GET /api/hats` item: a hat defined by a preset or the workspace config.
public struct HatItem: Codable, Hashable, Sendable {
    /// Display name (the hat's `name`, else its id).
    public var name: String
    /// The key under `hats:` (`builder`).
    public var id: String
    public var description: String
    public var emoji: String
    /// Hex color from the project's hat palette (``HatPalette``).
    public var color: String
    public var triggers: [String]
    public var publishes: [String]
    /// Files that define it, relative to the workspace.
    public var sources: [String]

    public init(name: String, id: String, description: String, emoji: String, color: String, triggers: [String], publishes: [String], sources: [String]) {
        self.name = name
        self.id = id
        self.description = description
        self.emoji = emoji
        self.color = color
        self.triggers = triggers
        self.publishes = publishes
        self.sources = sources
    }
}
