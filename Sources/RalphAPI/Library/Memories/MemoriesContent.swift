/// `GET/PUT /api/memories`.
public struct MemoriesContent: Codable, Hashable, Sendable {
    public var content: String
    public var lastModified: String?
    /// The entries ralph would read from ``content``.
    public var entries: [MemoryEntry]

    public init(content: String, lastModified: String?, entries: [MemoryEntry]) {
        self.content = content
        self.lastModified = lastModified
        self.entries = entries
    }

    enum CodingKeys: String, CodingKey {
        case content, entries
        case lastModified = "last_modified"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(content, forKey: .content)
        try c.encode(lastModified, forKey: .lastModified)
        try c.encode(entries, forKey: .entries)
    }
}
