/// `GET /api/health`.
public struct HealthResponse: Codable, Hashable, Sendable {
    public var status: String
    public var version: String
    public var timestamp: String
    public var protocolVersion: Int
    /// Features this server has, so clients can adapt (`sessions`, `session_events`, `global_events`, …).
    public var capabilities: [String]
    /// Whether requests need an API key (false for a loopback-only server without keys).
    public var authRequired: Bool
    /// The agent CLIs conversations run, as this server found them (version, permission modes they accept).
    public var agents: [AgentInfo]?

    public init(status: String, version: String, timestamp: String, protocolVersion: Int, capabilities: [String], authRequired: Bool, agents: [AgentInfo]? = nil) {
        self.status = status
        self.version = version
        self.timestamp = timestamp
        self.protocolVersion = protocolVersion
        self.capabilities = capabilities
        self.authRequired = authRequired
        self.agents = agents
    }

    enum CodingKeys: String, CodingKey {
        case status, version, timestamp, capabilities, agents
        case protocolVersion = "protocol_version"
        case authRequired = "auth_required"
    }
}
