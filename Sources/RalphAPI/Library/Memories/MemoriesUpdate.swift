/// `PUT /api/memories` body.
public struct MemoriesUpdate: Codable, Hashable, Sendable {
    public var content: String
    public init(content: String) { self.content = content }
}
