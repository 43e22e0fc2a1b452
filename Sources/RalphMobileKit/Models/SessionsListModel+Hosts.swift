import Foundation
import RalphAPI

/// The hosts of a cluster in the sessions list: read with the list, kept live from `host.updated`, and the host filter.
extension SessionsListModel {
    /// ``sessions`` through ``hostFilter``, newest first.
    public var filteredSessions: [Session] {
        guard let hostFilter, !hostFilter.isEmpty else { return sessions }
        return sessions.filter { $0.isOnHost(hostFilter) }
    }

    /// The host with this id, if the list knows it.
    public func host(id: String) -> HostInfo? { hosts.first { $0.id == id } }

    /// The host ``hostFilter`` names (by id, or by name ignoring case), if there is one.
    public var filteredHost: HostInfo? {
        guard let hostFilter else { return nil }
        return hosts.first { $0.id == hostFilter } ?? hosts.first { $0.name.lowercased() == hostFilter.lowercased() }
    }

    /// Hosts that are not heartbeating now.
    public var offlineHosts: [HostInfo] { hosts.filter { !$0.online } }

    /// Runs whose host is offline.
    public var unreachableCount: Int { sessions.filter(\.isUnreachable).count }

    /// Reads `GET /api/hosts`. A server without the route (an older one) simply has no hosts: that is not an error of the
    /// list. A `host.updated` that arrives during the read wins over what the read says of that host.
    func refreshHosts() async {
        let before = hostUpdateCount
        guard let list = try? await client.hosts(), !Task.isCancelled else { return }
        var fresh = list.hosts
        for (id, update) in hostUpdates where update.number > before {
            if let index = fresh.firstIndex(where: { $0.id == id }) { fresh[index] = update.host } else { fresh.append(update.host) }
        }
        hosts = Self.ordered(fresh)
        isClustered = list.clustered
    }

    /// A `host.updated` frame: the host's new state; the runs of a host gone offline are unreachable at once (the
    /// server announces each of them so next).
    func apply(_ host: HostInfo) {
        hostUpdateCount += 1
        hostUpdates[host.id] = (host, hostUpdateCount)
        var list = hosts
        if let index = list.firstIndex(where: { $0.id == host.id }) { list[index] = host } else { list.append(host) }
        hosts = Self.ordered(list)
        isClustered = true
        guard !host.online else { return }
        for index in sessions.indices where sessions[index].hostId == host.id && !sessions[index].isUnreachable {
            sessions[index] = sessions[index].markedUnreachable()
        }
    }

    /// This server first, then by name (the order of `GET /api/hosts`).
    static func ordered(_ hosts: [HostInfo]) -> [HostInfo] {
        hosts.sorted { ($0.isSelf ? 0 : 1, $0.name, $0.id) < ($1.isSelf ? 0 : 1, $1.name, $1.id) }
    }
}
