/// `POST /api/conversations`.
public struct CreateConversationRequest: Codable, Hashable, Sendable {
    public var title: String?
    public var cwd: String
    public var backend: String?
    public var model: String?
    public var permissionMode: String?
    /// In a cluster, the host whose agent CLI runs the conversation, in that host's workspaces (its id or name);
    /// default: the server the request is sent to.
    public var host: String?

    public init(title: String? = nil, cwd: String, backend: String? = nil, model: String? = nil, permissionMode: String? = nil, host: String? = nil) {
        self.title = title
        self.cwd = cwd
        self.backend = backend
        self.model = model
        self.permissionMode = permissionMode
        self.host = host
    }

    enum CodingKeys: String, CodingKey {
        case title, cwd, backend, model, host
        case permissionMode = "permission_mode"
    }
}
