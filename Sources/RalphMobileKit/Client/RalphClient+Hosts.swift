import RalphAPI

/// The hosts of a cluster (servers sharing one PostgreSQL database).
extension RalphClient {
    /// `GET /api/hosts`: every host of the cluster, this server first, each online or not; a server on its own lists
    /// itself alone with `HostList.clustered` false.
    public func hosts() async throws(RalphClientError) -> HostList { try await get("/api/hosts") }
}
