/// `POST /api/login` response and `GET /api/whoami`: who the caller is.
public struct WhoAmI: Codable, Hashable, Sendable {
    public var role: Role
    /// Id of the key in use; nil on a trusted loopback server without keys.
    public var keyID: String?
    /// Whether this server asks for a key at all.
    public var authRequired: Bool
    /// How the caller authenticated: `key` (header or token), `cookie` (web login) or `trusted`.
    public var via: String
    /// RFC 3339 end of a web login.
    public var expiresAt: String?

    public init(role: Role, keyID: String?, authRequired: Bool, via: String, expiresAt: String? = nil) {
        self.role = role
        self.keyID = keyID
        self.authRequired = authRequired
        self.via = via
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case role, via
        case keyID = "key_id"
        case authRequired = "auth_required"
        case expiresAt = "expires_at"
    }
}
