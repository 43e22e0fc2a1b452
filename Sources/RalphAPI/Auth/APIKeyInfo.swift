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

/// `GET /api/keys`.
public struct APIKeyList: Codable, Hashable, Sendable {
    public var keys: [APIKeyInfo]
    public init(keys: [APIKeyInfo]) { self.keys = keys }
}

/// `POST /api/keys` body.
public struct CreateAPIKeyRequest: Codable, Hashable, Sendable {
    public var role: Role
    public var name: String?
    public init(role: Role, name: String?) {
        self.role = role
        self.name = name
    }
}

/// `POST /api/keys` response: the key's secret is in this response only.
public struct CreatedAPIKey: Codable, Hashable, Sendable {
    public var key: APIKeyInfo
    public var secret: String
    public init(key: APIKeyInfo, secret: String) {
        self.key = key
        self.secret = secret
    }
}
