import Hummingbird
import RalphAPI

/// `GET /api/hosts`: every server of the cluster and whether it is online (this one alone, for a server on its own).
struct ClusterRoutes {
    let hosts: HostRegistry

    func register(on routes: Routes) {
        routes.viewer.get("/api/hosts") { _, _ in JSONResponse.make(HostList(hosts: hosts.all(), clustered: hosts.clustered)) }
    }
}

extension HostRegistry {
    /// A conversation as a cluster shows it: named with the host its agent runs on.
    func stamp(_ conversation: Conversation) -> Conversation {
        guard clustered, let owner = conversation.hostId else { return conversation }
        var conversation = conversation
        conversation.host = host(owner)?.name
        return conversation
    }

    /// A local run's session as a cluster shows it: named with this host (a server on its own leaves it as it is).
    func stamp(_ session: Session) -> Session {
        guard clustered else { return session }
        var session = session
        session.host = name
        session.hostId = id
        session.reachable = true
        return session
    }

    /// Whether a session belongs to the host `filter` names (its id or its name, ignoring case).
    static func matches(_ session: Session, host filter: String) -> Bool {
        session.hostId == filter || session.host?.lowercased() == filter.lowercased()
    }
}
