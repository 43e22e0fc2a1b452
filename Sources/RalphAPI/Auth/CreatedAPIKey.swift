/// `POST /api/keys` response: the key's secret is in this response only.
public struct CreatedAPIKey: Codable, Hashable, Sendable {
    public var key: APIKeyInfo
    public var secret: String
    public init(key: APIKeyInfo, secret: String) {
        self.key = key
        self.secret = secret
    }
}
