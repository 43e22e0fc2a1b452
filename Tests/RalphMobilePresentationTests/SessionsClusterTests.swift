import ClientTestSupport
import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing
import TestSupport

/// The sessions screens' rules for a cluster, from values: host labels, the unreachable state in words, the host filter
/// and the hosts section; a server on its own shows none of it.
@Suite("Sessions in a cluster: host labels, unreachable runs, hosts section")
@MainActor
struct SessionsClusterRulesTests {
    let utc = TimeZone(identifier: "UTC")!
    var now: Date { SessionsFixtures.now }

    @Test("a row names its host; a run of an offline host is unreachable in words, with its own badge, neither live nor done")
    func rows() throws {
        let rows = SessionsFixtures.clusterRows
        try #require(rows.map(\.hostText) == ["alpha", "alpha", "bravo", "bravo"])
        #expect(rows[0].mode.text == "live" && !rows[0].isUnreachable && rows[0].unreachableText == nil && rows[0].isActive)
        #expect(rows[0].accessibilityLabel.contains("on host alpha"))
        let unreachable = rows[2]
        #expect(unreachable.isUnreachable && !unreachable.isActive)
        #expect(unreachable.mode == SessionBadge(text: "unreachable", tone: .danger, accessibilityLabel: "Unreachable: its host is offline"))
        #expect(unreachable.status == nil, "unreachable + unreachable says nothing new")
        #expect(unreachable.unreachableText == "Host bravo is offline: what this run does now is not known until it is back.")
        #expect(unreachable.controlText == nil, "what held or stopped it is not known")
        #expect(unreachable.accessibilityLabel.contains("on host bravo") && unreachable.accessibilityLabel.contains("Host bravo is offline"))

        let sessions = SessionsFixtures.clusterSessions
        #expect(sessions.filter(SessionsFilter.live.includes).map(\.host) == ["alpha", "alpha"])
        #expect(sessions.filter(SessionsFilter.done.includes).isEmpty, "an unreachable run is not known to be done")
        #expect(SessionsFixtures.clusterFilterOptions.map(\.label) == ["All (4)", "Live (2)", "Done (0)"])
        #expect(SessionsFixtures.clusterSummary == "4 runs · 2 live · 2 unreachable")
    }

    @Test("a server on its own: no host label on any row, no host filter, no hosts section")
    func singleServer() {
        #expect(SessionsFixtures.rows.allSatisfy { $0.hostText == nil && !$0.isUnreachable && $0.unreachableText == nil })
        #expect(!SessionsFixtures.rows[0].accessibilityLabel.contains("host"))
        let alone = [HostInfo(id: "a1", name: "box", version: "0.9.0", online: true, lastHeartbeatAt: Timestamp.format(now), isSelf: true)]
        #expect(HostsSection(hosts: alone, clustered: false, sessions: SessionsFixtures.sessions, now: now) == nil)
        #expect(HostFilterOption.options(hosts: alone, clustered: false, sessions: SessionsFixtures.sessions).isEmpty)
        #expect(SessionsFixtures.listSummary == "4 runs · 2 live · 1 hidden")
    }

    @Test("the hosts section: this server first, online or offline, last seen, runs; a banner while a host is offline; the host filter's choices")
    func hostsSection() throws {
        let section = try #require(SessionsFixtures.hostsSection)
        try #require(section.rows.count == 2)
        #expect(section.title == "Hosts" && section.summary == "2 hosts · 1 offline")
        #expect(section.banner == "Host bravo is offline: 2 runs unreachable." && section.bannerTone == .danger)
        let alpha = section.rows[0]
        #expect(alpha.name == "alpha" && alpha.isSelf && alpha.selfText == "this server" && alpha.isOnline)
        #expect(alpha.state == SessionBadge(text: "online", tone: .success, accessibilityLabel: "Online"))
        #expect(alpha.lastSeenText == "last seen 1s ago" && alpha.runsText == "2 runs · 2 live" && alpha.versionText == "version 0.9.0")
        let bravo = section.rows[1]
        #expect(bravo.name == "bravo" && !bravo.isSelf && bravo.selfText == nil && !bravo.isOnline)
        #expect(bravo.state.text == "offline" && bravo.state.tone == .danger)
        #expect(bravo.lastSeenText == "last seen 2m ago" && bravo.runsText == "2 runs unreachable")
        #expect(bravo.accessibilityLabel == "Host bravo, Offline, last seen 2m ago, 2 runs unreachable")
        #expect(SessionsFixtures.hostOptions.map(\.label) == ["All hosts (4)", "alpha (2)", "bravo · offline (2)"])
        #expect(SessionsFixtures.hostOptions.map(\.hostID) == [nil, "a1a1a1a1a1a1", "b2b2b2b2b2b2"])
        let allOnline = SessionsFixtures.clusterHosts.map { host -> HostInfo in
            var host = host
            host.online = true
            return host
        }
        #expect(HostsSection(hosts: allOnline, clustered: true, sessions: [], now: now)?.banner == nil)
        #expect(HostsSection(hosts: allOnline, clustered: true, sessions: [], now: now)?.summary == "2 hosts · all online")
    }

    @Test("the detail of an unreachable run: no controls, the reason in words, the host in the header, the stream line says the host is offline")
    func detail() throws {
        let session = SessionsFixtures.clusterSessions[2]
        let control = ModeControlSection(session: session, capabilities: Capabilities(role: .admin))
        #expect(control.isShown && !control.showsPause && !control.showsResume && !control.showsStop && control.stopNote == nil)
        #expect(control.mode.text == "unreachable")
        #expect(control.note == "Host bravo is offline: what this run does now is not known until it is back.")
        #expect(
            control.controlsOffReason
                == "Controls are off: host bravo is offline, so this run cannot be paused, resumed, stopped, steered or sent events until it is back.")
        let actions = ActionsSection(session: session, hasPendingQuestion: true, capabilities: Capabilities(role: .admin))
        #expect(!actions.showsSteer && !actions.showsEmit && !actions.showsAnswer && actions.showsExport)
        #expect(actions.note == control.controlsOffReason)
        let header = StatusHeader(session: session, stopReason: nil, elapsedSeconds: 0, now: now, timeZone: utc)
        #expect(header.hostText == "bravo · offline" && header.rows.last == SectionStat("Host", "bravo · offline"))
        #expect(header.unreachableText == "Host bravo is offline: what this run does now is not known until it is back.")
        let line = ConnectionLine.stream(state: .connected, endedReason: nil, isActive: false, hostOffline: "bravo")
        #expect(line.kind == .hostOffline && line.text == "Host bravo is offline: no events until it is back" && line.tone == .danger)

        // A reachable run of a cluster keeps its controls, with its host in the header; a run on its own has no host row.
        let live = SessionsFixtures.clusterSessions[0]
        #expect(ModeControlSection(session: live, capabilities: Capabilities(role: .admin)).showsPause)
        #expect(ModeControlSection(session: live, capabilities: Capabilities(role: .admin)).controlsOffReason == nil)
        #expect(StatusHeader(session: live, stopReason: nil, elapsedSeconds: 0, now: now, timeZone: utc).hostText == "alpha")
        #expect(!SessionsFixtures.header.rows.contains { $0.label == "Host" })
    }
}

/// The sessions screens against a real cluster: two servers (`alpha`, `bravo`) on one PostgreSQL database, runs played
/// by fake-ralph, bravo stopped to take it offline.
@Suite("Sessions screens against a real cluster", .serialized)
@MainActor
struct SessionsClusterScreenTests {
    func listModel(_ client: RalphClient) -> SessionsListScreenModel {
        let model = SessionsListScreenModel(client: client, hiddenStore: nil)
        model.list.policy = ClientTestServer.fastPolicy
        model.list.pollInterval = .seconds(60)
        return model
    }

    @Test("the list: rows with their host, the host filter, the hosts section; bravo going offline shows live as unreachable, in the section and the rows")
    func list() async throws {
        let cluster = try await ClientTestCluster.start("rm-screens-cluster")
        defer { Task { await cluster.stop() } }
        let onAlpha = try await cluster.startRun(on: cluster.alpha, prompt: "Alpha's task")
        let onBravo = try await cluster.startRun(on: cluster.bravo, prompt: "Bravo's task")
        let m = listModel(try cluster.client(cluster.alpha))
        await m.start()
        defer { m.suspend() }
        try await untilOnMain(15, "both runs, live") { m.connectionLine.kind == .live && m.rows().count == 2 && m.hostsSection() != nil }

        #expect(m.rows().first { $0.id == onAlpha }?.hostText == "alpha" && m.rows().first { $0.id == onBravo }?.hostText == "bravo")
        #expect(m.summary == "2 runs · 2 live")
        #expect(m.hostOptions.map(\.label) == ["All hosts (2)", "alpha (1)", "bravo (1)"])
        let section = try #require(m.hostsSection())
        try #require(section.rows.map(\.name) == ["alpha", "bravo"])
        #expect(section.rows.map(\.isOnline) == [true, true] && section.banner == nil)
        #expect(section.rows[0].selfText == "this server" && section.rows[1].runsText == "1 run · 1 live")

        m.hostFilter = m.hostOptions.last?.hostID
        #expect(m.rows().map(\.id) == [onBravo])
        m.hostFilter = nil
        #expect(m.rows().count == 2)

        await cluster.stopBravo()
        try await untilOnMain(10, "bravo offline in the hosts section") { m.hostsSection()?.rows.last?.isOnline == false }
        #expect(m.connectionLine.kind == .live, "it came on the global stream")
        try await untilOnMain(10, "bravo's run unreachable") { m.rows().first { $0.id == onBravo }?.isUnreachable == true }
        let row = try #require(m.rows().first { $0.id == onBravo })
        #expect(row.mode.text == "unreachable" && !row.isActive && row.unreachableText?.hasPrefix("Host bravo is offline") == true)
        #expect(m.rows().first { $0.id == onAlpha }?.mode.text == "live")
        #expect(m.summary == "2 runs · 1 live · 1 unreachable")
        #expect(m.hostsSection()?.banner == "Host bravo is offline: 1 run unreachable.")
        #expect(m.hostsSection()?.rows.last?.runsText == "1 run unreachable")
        #expect(m.hostOptions.map(\.label) == ["All hosts (2)", "alpha (1)", "bravo · offline (1)"])
        #expect(m.filterOptions.map(\.label) == ["All (2)", "Live (1)", "Done (0)"])
        m.filter = .live
        #expect(m.rows().map(\.id) == [onAlpha], "an unreachable run is never listed as live")
    }

    @Test("a host with no runs: the host filter's empty state offers every host's runs again")
    func emptyHost() async throws {
        let cluster = try await ClientTestCluster.start("rm-screens-cluster")
        defer { Task { await cluster.stop() } }
        let onAlpha = try await cluster.startRun(on: cluster.alpha)
        let m = listModel(try cluster.client(cluster.alpha))
        await m.start()
        defer { m.suspend() }
        try await untilOnMain(15, "the run and both hosts") { m.rows().count == 1 && m.hostOptions.count == 3 }
        m.hostFilter = "bravo"
        #expect(m.rows().isEmpty)
        let empty = try #require(m.emptyState(canStartRuns: true))
        #expect(empty.kind == .filteredOut && empty.title == "No runs on host bravo." && empty.action == .showAllHosts)
        #expect(empty.action?.label == "Show every host’s runs")
        await m.perform(.showAllHosts)
        #expect(m.hostFilter == nil && m.rows().map(\.id) == [onAlpha] && m.emptyState(canStartRuns: true) == nil)
    }

    @Test("the detail of bravo's run follows its host offline: controls gone with the reason; a control sent meanwhile is refused with host_offline")
    func detail() async throws {
        let cluster = try await ClientTestCluster.start("rm-screens-cluster")
        defer { Task { await cluster.stop() } }
        let onBravo = try await cluster.startRun(on: cluster.bravo, prompt: "Bravo's task")
        let client = try cluster.client(cluster.alpha)
        try await eventually(15, "alpha to list bravo's run") { try await client.sessions(host: "bravo").count == 1 }

        let following = SessionDetailScreenModel(client: client, sessionID: onBravo, capabilities: Capabilities(role: .admin))
        following.iterationsRefreshInterval = .milliseconds(200)
        following.monitor.policy = ClientTestServer.fastPolicy
        // A screen that does not re-read the run meanwhile: its controls still show, and the server refuses them.
        let stale = SessionDetailScreenModel(client: client, sessionID: onBravo, capabilities: Capabilities(role: .admin))
        stale.iterationsRefreshInterval = .seconds(600)
        await following.start()
        await stale.start()
        defer {
            following.suspend()
            stale.suspend()
        }
        #expect(following.modeControl.showsPause && following.modeControl.controlsOffReason == nil)
        #expect(following.header()?.hostText == "bravo", "the host stays known after the detail (which does not carry it) is read")
        #expect(following.actions.showsSteer)

        await cluster.stopBravo()
        try await untilOnMain(10, "the screen to see bravo offline") { following.modeControl.controlsOffReason != nil }
        let control = following.modeControl
        #expect(!control.showsPause && !control.showsStop && control.mode.text == "unreachable")
        #expect(control.controlsOffReason?.hasPrefix("Controls are off: host bravo is offline") == true)
        #expect(!following.actions.showsSteer && !following.actions.showsEmit)
        #expect(following.header()?.hostText == "bravo · offline")
        #expect(following.eventStream().connection.kind == .hostOffline)
        await following.pauseRun()
        #expect(following.outcome == nil, "a control that is not shown does nothing")

        #expect(stale.modeControl.showsPause, "not re-read: it still shows the run live")
        try await eventually(10, "alpha to see bravo offline") { try await client.hosts().hosts.first { $0.name == "bravo" }?.online == false }
        await stale.pauseRun()
        let outcome = try #require(stale.outcome)
        #expect(outcome.isError && outcome.text.hasPrefix("Could not pause: host offline: host bravo is offline"), "\(outcome.text)")
    }

    @Test("a server on its own is unchanged: rows without host, no host filter, no hosts section")
    func singleServer() async throws {
        let h = try await SessionsHarness.start()
        defer { Task { await h.stop() } }
        let (writer, id) = try await h.writeRun(prompt: "On its own")
        defer { writer.releaseLock() }
        let m = listModel(h.admin)
        await m.start()
        defer { m.suspend() }
        try await untilOnMain(10, "live") { m.connectionLine.kind == .live && m.rows().count == 1 }
        #expect(m.rows().first?.id == id && m.rows().first?.hostText == nil && m.rows().first?.isUnreachable == false)
        #expect(m.hostOptions.isEmpty && m.hostsSection() == nil)
        #expect(m.summary == "1 run · 1 live")
    }
}
