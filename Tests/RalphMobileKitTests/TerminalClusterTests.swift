import ClientTestSupport
import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The `ralph-mobile` executable against a real cluster of two servers (`alpha`, `bravo`) on one PostgreSQL database:
/// plain commands with their output, and the live views inside tmux.
@Suite("The ralph-mobile terminal client in a cluster", .serialized)
struct TerminalClusterTests {
    static func cli(_ arguments: [String], _ cluster: ClientTestCluster) async throws -> Products.Output {
        try await TerminalClientTests.cli(arguments + ["--server", cluster.alpha.base], config: cluster.tmp.subdirectory("cli"))
    }

    /// The table row of a run (it starts with the id's first 8 characters).
    static func row(_ output: String, _ id: String) -> String? {
        output.split(separator: "\n").map(String.init).first { $0.hasPrefix(String(id.prefix(8))) }
    }

    @Test("sessions has a HOST column and --host; hosts lists both online; bravo offline: its run unreachable, controls refused with host_offline")
    func commands() async throws {
        let cluster = try await ClientTestCluster.start("rm-cli-cluster")
        defer { Task { await cluster.stop() } }
        let onAlpha = try await cluster.startRun(on: cluster.alpha, prompt: "Alpha's task")
        let onBravo = try await cluster.startRun(on: cluster.bravo, prompt: "Bravo's task")
        let client = try cluster.client(cluster.alpha)
        try await eventually(15, "alpha to list both runs") { try await client.sessions().count == 2 }

        let sessions = try await Self.cli(["sessions"], cluster)
        #expect(sessions.status == 0, "\(sessions.stderr)")
        let header = try #require(sessions.stdout.split(separator: "\n").first.map(String.init))
        #expect(header.hasPrefix("ID") && header.contains("HOST") && header.contains("MODE"), "\(sessions.stdout)")
        let alphaRow = try #require(Self.row(sessions.stdout, onAlpha), "\(sessions.stdout)")
        let bravoRow = try #require(Self.row(sessions.stdout, onBravo), "\(sessions.stdout)")
        #expect(alphaRow.contains(" alpha ") && alphaRow.contains(" live "), "\(alphaRow)")
        #expect(bravoRow.contains(" bravo ") && bravoRow.contains(" live "), "\(bravoRow)")

        let onlyBravo = try await Self.cli(["sessions", "--host", "bravo"], cluster)
        #expect(onlyBravo.status == 0 && Self.row(onlyBravo.stdout, onBravo) != nil && Self.row(onlyBravo.stdout, onAlpha) == nil, "\(onlyBravo.stdout)")
        let json = try await Self.cli(["sessions", "--host", "ALPHA", "--json"], cluster)
        #expect(try WireJSON.decode([Session].self, from: Data(json.stdout.utf8)).map(\.id) == [onAlpha], "\(json.stdout)")
        let nowhere = try await Self.cli(["sessions", "--host", "nowhere"], cluster)
        #expect(nowhere.status == 1 && nowhere.stderr.contains("no host 'nowhere' in the cluster (hosts: alpha, bravo)"), "\(nowhere.stderr)")

        let hosts = try await Self.cli(["hosts"], cluster)
        #expect(hosts.status == 0, "\(hosts.stderr)")
        let hostLines = hosts.stdout.split(separator: "\n").map(String.init)
        #expect(hostLines.first?.hasPrefix("HOST") == true && hostLines.first?.contains("STATE") == true, "\(hosts.stdout)")
        #expect(hostLines.contains { $0.hasPrefix("alpha (this server)") && $0.contains("● online") && $0.contains("1 (1 live)") }, "\(hosts.stdout)")
        #expect(hostLines.contains { $0.hasPrefix("bravo") && $0.contains("● online") }, "\(hosts.stdout)")
        #expect(!hosts.stdout.contains("not part of a cluster"))

        // Bravo goes offline: seen at once on alpha.
        await cluster.stopBravo()
        try await eventually(10, "alpha to see bravo offline") { try await client.hosts().hosts.first { $0.name == "bravo" }?.online == false }
        let offline = try await Self.cli(["hosts"], cluster)
        #expect(offline.stdout.split(separator: "\n").contains { $0.hasPrefix("bravo") && $0.contains("✕ offline") && $0.contains("1 unreachable") }, "\(offline.stdout)")
        #expect(offline.stdout.contains("Host bravo is offline: 1 run unreachable."), "\(offline.stdout)")
        let listed = try await Self.cli(["sessions"], cluster)
        let unreachableRow = try #require(Self.row(listed.stdout, onBravo), "\(listed.stdout)")
        #expect(unreachableRow.contains(" bravo ") && unreachableRow.contains("unreachable") && !unreachableRow.contains(" live "), "\(unreachableRow)")
        #expect(Self.row(listed.stdout, onAlpha)?.contains(" live ") == true)
        let filtered = try await Self.cli(["sessions", "--host", "bravo"], cluster)
        #expect(filtered.stdout.contains("host bravo is offline: its runs are unreachable until it is back"), "\(filtered.stdout)")

        let status = try await Self.cli(["status", onBravo], cluster)
        #expect(status.status == 0, "what the cluster knows is shown: \(status.stderr)")
        #expect(status.stdout.contains("unreachable") && status.stdout.contains("bravo (offline)"), "\(status.stdout)")
        #expect(status.stdout.contains("Host bravo is offline: what this run does now is not known until it is back."), "\(status.stdout)")

        for command in [["pause", onBravo], ["resume", onBravo], ["emit", onBravo, "probe.topic"], ["steer", onBravo, "hello"], ["stop", onBravo, "--yes"]] {
            let refused = try await Self.cli(command, cluster)
            #expect(refused.status == 1, "\(command[0]) \(refused.stdout)")
            #expect(refused.stderr.hasPrefix("error: host offline: host bravo is offline"), "\(command[0]): \(refused.stderr)")
            #expect(refused.stderr.contains("`ralph-mobile hosts` shows which hosts are online"), "\(command[0]): \(refused.stderr)")
        }
    }

    @Test("a server on its own is unchanged: no HOST column, hosts says it is not part of a cluster, --host only takes its own name")
    func singleServer() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let config = h.tmp.subdirectory("cli")
        let (writer, id) = try await h.writeRun(prompt: "On its own")
        defer { writer.releaseLock() }
        let server = ["--server", h.server.base]

        let sessions = try await TerminalClientTests.cli(["sessions"] + server, config: config)
        #expect(sessions.status == 0 && !sessions.stdout.contains("HOST") && Self.row(sessions.stdout, id)?.contains("live") == true, "\(sessions.stdout)")
        let hosts = try await TerminalClientTests.cli(["hosts"] + server, config: config)
        #expect(hosts.status == 0 && hosts.stdout.contains("(this server)") && hosts.stdout.contains("● online"), "\(hosts.stdout)")
        #expect(hosts.stdout.contains("not part of a cluster"), "\(hosts.stdout)")
        let name = try #require(try await h.client.hosts().hosts.first?.name)
        let own = try await TerminalClientTests.cli(["sessions", "--host", name] + server, config: config)
        #expect(own.status == 0 && Self.row(own.stdout, id) != nil, "its own name lists its runs: \(own.stdout) \(own.stderr)")
        let other = try await TerminalClientTests.cli(["sessions", "--host", "elsewhere"] + server, config: config)
        #expect(other.status == 1 && other.stderr.contains("not 'elsewhere': it is not part of a cluster"), "\(other.stderr)")
    }

    @Test("under tmux: sessions --watch shows bravo's run turn unreachable live; watch on it says its host is offline and refuses the controls")
    func liveViews() async throws {
        let cluster = try await ClientTestCluster.start("rm-cli-cluster")
        defer { Task { await cluster.stop() } }
        let onAlpha = try await cluster.startRun(on: cluster.alpha, prompt: "Alpha's task")
        let onBravo = try await cluster.startRun(on: cluster.bravo, prompt: "Bravo's task")
        let client = try cluster.client(cluster.alpha)
        try await eventually(15, "alpha to list both runs") { try await client.sessions().count == 2 }
        let environment = ["RALPH_MOBILE_CONFIG_DIR": cluster.tmp.subdirectory("cli"), "NO_COLOR": "1"]
        let list = try Tmux()
        let watch = try Tmux()
        do {
            try await list.start(command: [Products.path("ralph-mobile"), "sessions", "--watch", "--server", cluster.alpha.base], environment: environment)
            try await list.waitFor("both runs with their hosts") { screen in
                screen.contains("● connected") && screen.contains("HOST") && Self.row(screen, onAlpha)?.contains("alpha") == true
                    && Self.row(screen, onBravo)?.contains("bravo") == true
            }
            try await watch.start(command: [Products.path("ralph-mobile"), "watch", onBravo, "--server", cluster.alpha.base], environment: environment)
            try await watch.waitFor("the dashboard of bravo's run") { $0.contains("host bravo") && $0.contains("live") && $0.contains("p pause") }

            await cluster.stopBravo()
            try await list.waitFor("bravo's run unreachable on the live list") { screen in
                Self.row(screen, onBravo)?.contains("unreachable") == true && screen.contains("Host bravo is offline: 1 run unreachable.")
                    && Self.row(screen, onAlpha)?.contains("live") == true
            }
            // The dashboard reads its run again every few seconds.
            try await watch.waitFor("the dashboard to say bravo is offline", seconds: 15) { screen in
                screen.contains("unreachable") && screen.contains("✕ host bravo offline")
                    && screen.contains("Host bravo is offline: what this run does now is not known until it is back.")
            }
            let screen = try await watch.capture()
            #expect(!screen.contains("p pause"), "no control is offered: \(screen)")
            try await watch.send("p")
            try await watch.waitFor("the controls refused") { $0.contains("Controls are off until host bravo is back.") }
            #expect(try await client.status(onBravo).mode == .unreachable)
            try await watch.send("q")
            try await eventually(5, "watch to quit") { await !watch.isRunning }
        } catch {
            await list.kill()
            await watch.kill()
            throw error
        }
        await list.kill()
        await watch.kill()
    }
}
