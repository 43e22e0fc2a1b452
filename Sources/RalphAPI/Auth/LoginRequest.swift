/// `POST /api/login` body: the web dashboard trades a key for a session cookie.
public struct LoginRequest: Codable, Hashable, Sendable {
    public var key: String
    public init(key: String) { self.key = key }
}
