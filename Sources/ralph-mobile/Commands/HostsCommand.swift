import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile hosts`: the servers of a cluster and whether each is online.
struct HostsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hosts",
        abstract: "List the hosts of the server's cluster: online or offline, last seen, version, runs.",
        discussion: """
            Servers started with the same --database postgres://… act as one cluster: each lists every host's runs, and \
            a run whose host is offline is `unreachable` (it cannot be controlled until its host is back). A server on \
            its own lists itself alone.
            """
    )

    @OptionGroup var server: ServerOptions

    @Flag(help: "Print the server's JSON (GET /api/hosts).")
    var json = false

    @MainActor
    func run() async throws {
        let format = Format(theme: server.theme)
        try await withClient(server) { client in
            let list = try await client.hosts()
            if json {
                say(try SessionsCommand.prettyJSON(list))
                return
            }
            let sessions = try await client.sessions()
            for line in format.hostsTable(list.hosts, sessions: sessions, clustered: list.clustered) { say(line) }
            if !list.clustered {
                say(server.theme.dim("not part of a cluster: servers sharing one --database postgres://… list each other here"))
            } else if let banner = HostWords.offlineBanner(hosts: list.hosts, sessions: sessions) {
                say(server.theme.bad(banner))
            }
        }
    }
}

/// The host `--host` names, checked against the server's hosts.
enum HostChoice {
    /// What to filter the sessions on for `name` (a host's name or id): the host's id in a cluster; nil on a server on
    /// its own when `name` is that server (all its runs are its own). Any other name fails, listing the hosts there are.
    @MainActor
    static func resolve(_ name: String, client: RalphClient) async throws -> HostInfo? {
        let list: HostList
        do {
            list = try await client.hosts()
        } catch {
            guard case .notFound = error else { throw error }
            throw RalphMobileFailure(message: "\(client.baseURL) does not know hosts (an older server): --host needs a server of a cluster")
        }
        let host = list.hosts.first { $0.id == name } ?? list.hosts.first { $0.name.lowercased() == name.lowercased() }
        guard let host else {
            let names = list.hosts.map(\.name).joined(separator: ", ")
            throw RalphMobileFailure(
                message: list.clustered
                    ? "no host '\(name)' in the cluster (hosts: \(names))"
                    : "this server is host \(names), not '\(name)': it is not part of a cluster")
        }
        return list.clustered ? host : nil
    }
}
