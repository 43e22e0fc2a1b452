/// An agent CLI as this server found it (`GET /api/health`'s `agents`).
public struct AgentInfo: Codable, Hashable, Sendable {
    /// Backend name (`claude`).
    public var name: String
    /// The command conversations run.
    public var command: String
    /// The version it reports (`claude --version`), nil when it could not be run.
    public var version: String?
    /// The `--permission-mode` values it accepts (read from its `--help`); what `permission_mode` may be set to.
    public var permissionModes: [String]
    /// Why it could not be asked, when it could not.
    public var error: String?

    public init(name: String, command: String, version: String?, permissionModes: [String], error: String?) {
        self.name = name
        self.command = command
        self.version = version
        self.permissionModes = permissionModes
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case name, command, version, error
        case permissionModes = "permission_modes"
    }
}
