/// `GET /api/keys`.
public struct APIKeyList: Codable, Hashable, Sendable {
    public var keys: [APIKeyInfo]
    public init(keys: [APIKeyInfo]) { self.keys = keys }
}
