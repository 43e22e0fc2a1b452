import ClientTestSupport
import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The SDK against a real cluster: two servers (`alpha`, `bravo`) on one PostgreSQL database, runs played by
/// fake-ralph on each, bravo stopped to take it offline.
@Suite("The SDK in a cluster: hosts, host filter, unreachable runs", .serialized)
@MainActor
struct ClusterClientTests {
    @Test("each run says its host; sessions(host:) keeps one host's by name or id; hosts() lists both online, this server first")
    func hostsAndFilter() async throws {
        let cluster = try await ClientTestCluster.start()
        defer { Task { await cluster.stop() } }
        let onAlpha = try await cluster.startRun(on: cluster.alpha, prompt: "Alpha's task")
        let onBravo = try await cluster.startRun(on: cluster.bravo, prompt: "Bravo's task")
        let client = try cluster.client(cluster.alpha)
        try await eventually(15, "alpha to list both runs") { try await client.sessions().count == 2 }

        let all = try await client.sessions()
        #expect(all.first { $0.id == onAlpha }?.host == "alpha" && all.first { $0.id == onBravo }?.host == "bravo", "\(all.map { ($0.id, $0.host) })")
        #expect(all.allSatisfy { $0.reachable == true && $0.hostId != nil && !$0.isUnreachable })
        let list = try await client.hosts()
        #expect(list.clustered && list.hosts.map(\.name) == ["alpha", "bravo"] && list.hosts.map(\.isSelf) == [true, false], "\(list)")
        #expect(list.hosts.allSatisfy { $0.online })
        let bravoID = try #require(list.hosts.last?.id)
        #expect(try await client.sessions(host: "bravo").map(\.id) == [onBravo])
        #expect(try await client.sessions(host: bravoID).map(\.id) == [onBravo], "by id too")
        #expect(try await client.sessions(host: "ALPHA").map(\.id) == [onAlpha], "names ignore case")
        #expect(try await client.sessions(host: "nowhere").isEmpty)
        // Seen from bravo, the same cluster: bravo first.
        let fromBravo = try await cluster.client(cluster.bravo).hosts()
        #expect(fromBravo.hosts.map(\.name) == ["bravo", "alpha"])
    }

    @Test("the list model: hosts live from host.updated; bravo going offline makes its run unreachable at once, never counted live; the host filter")
    func listModelFollowsHosts() async throws {
        let cluster = try await ClientTestCluster.start()
        defer { Task { await cluster.stop() } }
        let onAlpha = try await cluster.startRun(on: cluster.alpha)
        let onBravo = try await cluster.startRun(on: cluster.bravo)
        let model = SessionsListModel(client: try cluster.client(cluster.alpha))
        model.policy = ClientTestServer.fastPolicy
        // Polling is for a stream that is down: with a minute between polls, only the stream can bring the changes.
        model.pollInterval = .seconds(60)
        await model.start()
        defer { model.stop() }
        try await until(15, "the stream and both runs") { model.connection == .connected && model.sessions.count == 2 }
        #expect(model.isClustered && model.hosts.map(\.name) == ["alpha", "bravo"] && model.hosts.allSatisfy { $0.online })
        #expect(model.activeCount == 2 && model.unreachableCount == 0 && model.offlineHosts.isEmpty)

        model.hostFilter = "bravo"
        #expect(model.filteredSessions.map(\.id) == [onBravo] && model.filteredHost?.name == "bravo")
        let bravoID = try #require(model.hosts.last?.id)
        model.hostFilter = bravoID
        #expect(model.filteredSessions.map(\.id) == [onBravo])
        model.hostFilter = "Alpha"
        #expect(model.filteredSessions.map(\.id) == [onAlpha])
        model.hostFilter = nil
        #expect(Set(model.filteredSessions.map(\.id)) == [onAlpha, onBravo])

        await cluster.stopBravo()
        try await until(10, "bravo offline on the list") { model.host(id: bravoID)?.online == false }
        #expect(model.connection == .connected && !model.isPolling, "it came on the global stream")
        let shown = try #require(model.sessions.first { $0.id == onBravo })
        #expect(shown.isUnreachable && shown.mode == .unreachable && shown.status == .unreachable && shown.pid == nil, "\(shown)")
        #expect(model.activeCount == 1, "an unreachable run is never counted live")
        #expect(model.unreachableCount == 1 && model.offlineHosts.map(\.name) == ["bravo"])
        #expect(model.sessions.first { $0.id == onAlpha }?.mode == .live)
        // The server's own announcement follows and says the same.
        try await until(10, "bravo's run re-announced as unreachable") { model.sessions.first { $0.id == onBravo }?.reachable == false }
        #expect(HostWords.offlineBanner(hosts: model.hosts, sessions: model.sessions) == "Host bravo is offline: 1 run unreachable.")

        // A refresh reads the same from the server.
        await model.refresh()
        #expect(model.sessions.first { $0.id == onBravo }?.mode == .unreachable && model.host(id: bravoID)?.online == false)
    }

    @Test("controlling a run of an offline host is refused with host_offline, a typed error in words; its words say why")
    func hostOffline() async throws {
        let cluster = try await ClientTestCluster.start()
        defer { Task { await cluster.stop() } }
        let onBravo = try await cluster.startRun(on: cluster.bravo)
        let client = try cluster.client(cluster.alpha)
        try await eventually(15, "alpha to list bravo's run") { try await client.sessions(host: "bravo").map(\.id) == [onBravo] }
        await cluster.stopBravo()
        try await eventually(10, "alpha to see bravo offline") { try await client.hosts().hosts.first { $0.name == "bravo" }?.online == false }

        do {
            _ = try await client.pause(onBravo)
            Issue.record("a run of an offline host was paused")
        } catch {
            guard case .hostOffline(let detail) = error else { throw error }
            #expect(detail.hasPrefix("host bravo is offline"), "\(detail)")
            #expect(error.description.hasPrefix("host offline: host bravo is offline"), "\(error.description)")
            #expect(error.isTransient, "it may work once the host is back")
        }
        await #expect(throws: RalphClientError.self) { _ = try await client.steer(onBravo, message: "hello") }
        let session = try await client.status(onBravo)
        #expect(session.isUnreachable && session.host == "bravo")
        #expect(HostWords.unreachable(session) == "Host bravo is offline: what this run does now is not known until it is back.")
        #expect(HostWords.controlsOff(session)?.hasPrefix("Controls are off: host bravo is offline") == true)
        #expect(ControlWords.stop(session) == nil && ControlWords.hold(session) == nil)
    }

    @Test("a server on its own is unchanged: no host on its runs, hosts() lists itself alone, the model is not clustered")
    func singleServer() async throws {
        let server = try await ClientTestServer.start("rm-kit-single")
        defer { Task { await server.stop() } }
        let client = try server.client()
        let (writer, id) = try await server.writeRun(client: client)
        defer { writer.releaseLock() }
        let session = try #require(try await client.sessions().first)
        #expect(session.id == id && session.host == nil && session.hostId == nil && session.reachable == nil && !session.isUnreachable)
        let list = try await client.hosts()
        #expect(!list.clustered && list.hosts.count == 1 && list.hosts.first?.isSelf == true && list.hosts.first?.online == true)

        let model = SessionsListModel(client: client)
        model.policy = ClientTestServer.fastPolicy
        await model.start()
        defer { model.stop() }
        try await until(10, "the stream") { model.connection == .connected }
        #expect(!model.isClustered && model.hosts.count == 1 && model.filteredSessions.map(\.id) == [id] && model.activeCount == 1)
        #expect(HostWords.offlineBanner(hosts: model.hosts, sessions: model.sessions) == nil)
    }

    @Test("host_offline answers map to their own error; other 503s do not")
    func errorMapping() {
        let offline = RalphClientError.from(status: 503, body: ErrorResponse(error: "host_offline: host alpha is offline: its runs cannot be reached"))
        #expect(offline == .hostOffline("host alpha is offline: its runs cannot be reached"))
        #expect(offline.description == "host offline: host alpha is offline: its runs cannot be reached")
        #expect(RalphClientError.from(status: 503, body: ErrorResponse(error: "unavailable: busy")) == .server(status: 503, message: "unavailable: busy"))
    }
}
