import Foundation
import RalphAPI

/// A cluster of two hosts for the sessions list's `#Preview` blocks: `alpha` (the server the app talks to) online,
/// `bravo` offline, with the sample runs shared between them.
extension SessionsFixtures {
    /// `alpha` (this server, online) and `bravo` (offline for two minutes).
    public static let clusterHosts: [HostInfo] = [
        HostInfo(id: "a1a1a1a1a1a1", name: "alpha", version: "0.9.0", online: true, lastHeartbeatAt: at(0.02), isSelf: true),
        HostInfo(id: "b2b2b2b2b2b2", name: "bravo", version: "0.9.0", online: false, lastHeartbeatAt: at(2), isSelf: false),
    ]

    /// The sample runs as a cluster lists them: the first two on alpha, the others on bravo, which is offline (so they
    /// are `unreachable`).
    public static var clusterSessions: [Session] {
        sessions.enumerated().map { index, session in
            var session = session
            let host = clusterHosts[index < 2 ? 0 : 1]
            session.host = host.name
            session.hostId = host.id
            session.reachable = host.online
            if !host.online {
                session.mode = .unreachable
                session.status = .unreachable
                session.pid = nil
            }
            return session
        }
    }

    /// The cluster's rows: each with its host, bravo's unreachable.
    public static var clusterRows: [SessionRow] { clusterSessions.map { SessionRow($0, now: now, timeZone: utc) } }

    /// The hosts section of the cluster.
    public static var hostsSection: HostsSection? { HostsSection(hosts: clusterHosts, clustered: true, sessions: clusterSessions, now: now) }

    /// The host filter's choices in the cluster.
    public static var hostOptions: [HostFilterOption] { HostFilterOption.options(hosts: clusterHosts, clustered: true, sessions: clusterSessions) }

    /// The cluster's summary line.
    public static var clusterSummary: String { SessionsListScreenModel.summary(sessions: clusterSessions, hiddenIDs: []) }

    /// The filter chips for the cluster's runs.
    public static var clusterFilterOptions: [SessionsFilterOption] { SessionsFilterOption.options(for: clusterSessions) }
}
