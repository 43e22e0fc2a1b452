/// `POST /api/conversations`.
public struct CreateConversationRequest: Codable, Hashable, Sendable {
    public var title: String?
    public var cwd: String
    public var backend: String?
    public var model: String?
    public var permissionMode: String?

    public init(title: String? = nil, cwd: String, backend: String? = nil, model: String? = nil, permissionMode: String? = nil) {
        self.title = title
        self.cwd = cwd
        self.backend = backend
        self.model = model
        self.permissionMode = permissionMode
    }

    enum CodingKeys: String, CodingKey {
        case title, cwd, backend, model
        case permissionMode = "permission_mode"
    }
}
