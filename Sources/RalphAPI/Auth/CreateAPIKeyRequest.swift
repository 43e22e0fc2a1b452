/// `POST /api/keys` body.
public struct CreateAPIKeyRequest: Codable, Hashable, Sendable {
    public var role: Role
    public var name: String?
    public init(role: Role, name: String?) {
        self.role = role
        self.name = name
    }
}
