/// One memory of ralph's `memories.md` (`### mem-…` under a `## Patterns|Decisions|Fixes|Context` section).
public struct MemoryEntry: Codable, Hashable, Sendable {
    public var id: String
    /// `pattern`, `decision`, `fix` or `context`.
    public var type: String
    public var content: String
    public var tags: [String]
    /// `YYYY-MM-DD`, when the entry says.
    public var created: String?

    public init(id: String, type: String, content: String, tags: [String], created: String?) {
        self.id = id
        self.type = type
        self.content = content
        self.tags = tags
        self.created = created
    }
}
