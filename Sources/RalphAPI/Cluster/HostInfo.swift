/// One server of a cluster (`GET /api/hosts`): a host runs its own agents and serves every host's.
public struct HostInfo: Codable, Hashable, Sendable {
    /// Stable across restarts (kept in the host's data directory).
    public var id: String
    /// `--host-name`, by default the machine's name.
    public var name: String
    public var version: String
    /// Heartbeating now. An offline host's sessions are listed as `unreachable`, never as live.
    public var online: Bool
    /// When it last said it was alive.
    public var lastHeartbeatAt: String
    /// This is the server answering.
    public var isSelf: Bool

    public init(id: String, name: String, version: String, online: Bool, lastHeartbeatAt: String, isSelf: Bool) {
        self.id = id
        self.name = name
        self.version = version
        self.online = online
        self.lastHeartbeatAt = lastHeartbeatAt
        self.isSelf = isSelf
    }

    enum CodingKeys: String, CodingKey {
        case id, name, version, online
        case lastHeartbeatAt = "last_heartbeat_at"
        case isSelf = "is_self"
    }
}
