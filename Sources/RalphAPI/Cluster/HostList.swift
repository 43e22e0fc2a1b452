/// `GET /api/hosts`: every server of the cluster (one, for a server on its own), this one first.
public struct HostList: Codable, Hashable, Sendable {
    public var hosts: [HostInfo]
    /// Whether the servers share a database (`--database postgres://…`).
    public var clustered: Bool

    public init(hosts: [HostInfo], clustered: Bool) {
        self.hosts = hosts
        self.clustered = clustered
    }
}
