/// An API key as listed: never the key itself.
public struct APIKeyInfo: Codable, Hashable, Sendable {
    public var id: String
    public var name: String?
    public var role: Role
    public var createdAt: String

    public init(id: String, name: String?, role: Role, createdAt: String) {
        self.id = id
        self.name = name
        self.role = role
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, role
        case createdAt = "created_at"
    }
}
