import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Servers of one cluster: each with its own workspace and data directory, all on one PostgreSQL database (a private
/// cluster, `PostgresServer`). Host A is the real `ralph-mobile-server` executable (so it can be killed); the others run
/// in this process.
@Suite("A cluster of servers on one PostgreSQL database", .serialized)
struct ClusterTests {
    /// A host's workspace with a `proj` whose ralph.yml scripts fake-ralph.
    static func workspace(_ tmp: TemporaryDirectory, _ name: String, behaviour: String) -> String {
        let root = tmp.subdirectory(name)
        let text = "fake_ralph:\n" + behaviour.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
        Fixture.write(text, to: root + "/proj/ralph.yml")
        return root
    }

    /// Host A as a process of its own.
    static func processHost(_ tmp: TemporaryDirectory, url: String, name: String, workspace: String) async throws -> (Executable.Server, String) {
        let server = try Executable.Server([
            "--database", url, "--workspace", workspace, "--data-dir", tmp.subdirectory("data-" + name), "--port", "0", "--host-name", name,
            "--ralph-command", Products.fakeRalph, "--poll-interval", "0.5", "--stop-grace", "3",
        ])
        return (server, "http://127.0.0.1:\(try await server.port())")
    }

    /// A host in this process.
    static func liveHost(_ tmp: TemporaryDirectory, url: String, name: String, workspace: String) async throws -> LiveServer {
        try await LiveServer.start(workspaces: [workspace], dataDirectory: tmp.subdirectory("data-" + name)) {
            $0.databaseURL = url
            $0.hostName = name
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
        }
    }

    /// Starts a run on the host at `base`; its id once ralph created its events file (not the pending id of a slow start).
    static func startRun(_ base: String) async throws -> String {
        let started = try await HTTP.request(base + "/api/sessions", method: .POST,
            body: #"{"config_path":"ralph.yml","prompt":"Do it","working_dir":"proj"}"#)
        guard started.status == 201 else { throw TestFailure("start: \(started.status) \(started.text)") }
        let answer = try started.json(StartSessionResponse.self)
        let id = Locked(answer.id)
        if answer.pending {
            try await eventually(10, "the run to start") {
                let session = try await HTTP.get(base + "/api/sessions/\(answer.id)/status").json(Session.self)
                id.withLock { $0 = session.id }
                return session.status != .starting
            }
        }
        return id.value
    }

    static func sessions(_ base: String, query: String = "") async throws -> [Session] {
        try await HTTP.get(base + "/api/sessions" + query).json([Session].self)
    }

    /// Every workflow event of a stream, until it ends: (id, data).
    static func events(_ base: String, _ id: String) async throws -> [(id: String?, data: String)] {
        let stream = try await SSETestClient.connect(base + "/api/sessions/\(id)/events?history=all")
        return try await stream.messagesUntilClosed(timeout: 20).filter { $0.event == "workflow" }.map { ($0.id, $0.data) }
    }

    @Test("a run on host A is listed with its host on C, streamed from C with A's ids and bytes; pause, resume and stop sent to C reach A's process")
    func runOfAFromC() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let url = try await PostgresServer.shared().makeDatabase()
        let (a, baseA) = try await Self.processHost(tmp, url: url, name: "alpha", workspace: Self.workspace(tmp, "ws-a", behaviour: "iterations: 40\npace: 0.3"))
        defer { a.stop() }
        let c = try await Self.liveHost(tmp, url: url, name: "charlie", workspace: Self.workspace(tmp, "ws-c", behaviour: "iterations: 1"))
        defer { Task { await c.stop() } }

        let id = try await Self.startRun(baseA)
        let seen = Locked<[Session]>([])
        do {
            try await eventually(15, "C to list A's run as live") {
                let all = try await Self.sessions(c.base)
                seen.withLock { $0 = all }
                return all.contains { $0.id == id && $0.host == "alpha" && $0.mode == .live && $0.reachable == true }
            }
        } catch {
            Issue.record("C listed: \(seen.value.map { "\($0.id) \($0.host ?? "-") \($0.mode) \(String(describing: $0.reachable))" }), A logged: \(a.log.value.suffix(3000))")
            throw error
        }
        let hosts = try await HTTP.get(c.base + "/api/hosts").json(HostList.self)
        #expect(hosts.clustered && hosts.hosts.map(\.name) == ["charlie", "alpha"] && hosts.hosts.allSatisfy(\.online), "\(hosts)")
        #expect(try await Self.sessions(c.base, query: "?host=alpha").map(\.id) == [id])
        #expect(try await Self.sessions(c.base, query: "?host=charlie").isEmpty)

        // Pause from C: A's ralph stops for real (SIGSTOP), and C sees it paused.
        let pause = try await HTTP.request(c.base + "/api/sessions/\(id)/pause", method: .POST)
        #expect(pause.status == 200 && pause.text.contains("paused"), "\(pause.text)")
        let pid = try #require(try await HTTP.get(baseA + "/api/sessions/\(id)/status").json(Session.self).pid)
        #expect(Self.processState(pid) == "T", "A's ralph is stopped")
        try await eventually(10, "C to show it paused") { try await HTTP.get(c.base + "/api/sessions/\(id)/status").json(Session.self).mode == .paused }
        #expect(try await HTTP.request(c.base + "/api/sessions/\(id)/resume", method: .POST).status == 200)
        #expect(Self.processState(pid) != "T")
        // A detail folded from the run file comes from A.
        let detail = try await HTTP.get(c.base + "/api/sessions/\(id)")
        #expect(detail.status == 200 && detail.text.contains("hat_flow") && detail.text.contains(#""host":"alpha""#), "\(detail.text.prefix(300))")
        // So does what is read from its workspace (`?session=`: the run's workspace, which is on A).
        let hats = try await HTTP.get(c.base + "/api/hats?session=\(id)")
        let hatsOnA = try await HTTP.get(baseA + "/api/hats?session=\(id)")
        #expect(hats.status == 200 && hats.text == hatsOnA.text, "\(hats.status) \(hats.text.prefix(300))")

        // Stop from C; both streams then end, with the same events, ids and bytes.
        #expect(try await HTTP.request(c.base + "/api/sessions/\(id)", method: .DELETE).status == 200)
        try await eventually(20, "the run to end, seen from C") { try await HTTP.get(c.base + "/api/sessions/\(id)/status").json(Session.self).mode == .complete }
        let fromA = try await Self.events(baseA, id)
        let fromC = try await Self.events(c.base, id)
        #expect(!fromA.isEmpty && fromC.map(\.id) == fromA.map(\.id) && fromC.map(\.data) == fromA.map(\.data), "\(fromC.count) vs \(fromA.count)")
    }

    @Test("a host that stops heartbeating is offline on the others, its runs unreachable, never live; controlling them is 503 host_offline")
    func offlineHost() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let url = try await PostgresServer.shared().makeDatabase()
        let (a, baseA) = try await Self.processHost(tmp, url: url, name: "alpha", workspace: Self.workspace(tmp, "ws-a", behaviour: "iterations: 400\npace: 0.3"))
        let b = try await Self.liveHost(tmp, url: url, name: "bravo", workspace: Self.workspace(tmp, "ws-b", behaviour: "iterations: 1"))
        defer { Task { await b.stop() } }
        let id = try await Self.startRun(baseA)
        try await eventually(15, "B to list A's run") { try await Self.sessions(b.base).contains { $0.id == id && $0.mode == .live } }
        let pid = try await HTTP.get(baseA + "/api/sessions/\(id)/status").json(Session.self).pid
        // Its ralph outlives its server: stopped at the end.
        defer { if let pid { kill(pid_t(pid), SIGKILL) } }

        // B's global stream carries A's run, and then A going offline.
        let global = try await SSETestClient.connect(b.base + "/api/events")
        let start = try await global.messages(until: "ready", timeout: 10)
        #expect(start.contains { $0.event == "session.added" && $0.data.contains(#""id":"\#(id)""#) && $0.data.contains(#""host":"alpha""#) })

        kill(a.process.processIdentifier, SIGKILL)
        let offline = try await global.messages(until: "session.updated", timeout: 15) { $0.data.contains(#""mode":"unreachable""#) }
        #expect(offline.contains { $0.event == "host.updated" && $0.data.contains(#""name":"alpha""#) && $0.data.contains(#""online":false"#) })
        global.cancel()
        try await eventually(15, "B to see A offline") {
            try await HTTP.get(b.base + "/api/hosts").json(HostList.self).hosts.first { $0.name == "alpha" }?.online == false
        }
        let shown = try #require(try await Self.sessions(b.base).first { $0.id == id })
        #expect(shown.mode == .unreachable && shown.status == .unreachable && shown.reachable == false && shown.host == "alpha", "\(shown)")
        let pause = try await HTTP.request(b.base + "/api/sessions/\(id)/pause", method: .POST)
        #expect(pause.status == 503 && pause.text.contains("host_offline: host alpha is offline"), "\(pause.text)")
        #expect(shown.pid == nil, "what an offline host's run is doing is not known")
    }

    @Test("a host that stops answering while a pause waits for it: the caller is told it was not done, and the host, back, does not do it late")
    func withdrawnCommand() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let url = try await PostgresServer.shared().makeDatabase()
        let (a, baseA) = try await Self.processHost(tmp, url: url, name: "alpha", workspace: Self.workspace(tmp, "ws-a", behaviour: "iterations: 400\npace: 0.3"))
        defer {
            // Never left stopped (and deaf to the terminate) if the test ends before it is continued.
            kill(a.process.processIdentifier, SIGCONT)
            a.stop()
        }
        let b = try await Self.liveHost(tmp, url: url, name: "bravo", workspace: Self.workspace(tmp, "ws-b", behaviour: "iterations: 1"))
        defer { Task { await b.stop() } }
        let id = try await Self.startRun(baseA)
        try await eventually(15, "B to list A's run") { try await Self.sessions(b.base).contains { $0.id == id && $0.mode == .live } }
        let pid = try #require(try await HTTP.get(baseA + "/api/sessions/\(id)/status").json(Session.self).pid)
        defer { kill(pid_t(pid), SIGKILL) }

        // A freezes: it neither heartbeats nor takes commands; B still counts it online for a few seconds.
        kill(a.process.processIdentifier, SIGSTOP)
        let pause = try await HTTP.request(b.base + "/api/sessions/\(id)/pause", method: .POST)
        #expect(pause.status == 503 && pause.text.contains("host_offline: host alpha went offline before carrying out POST /api/sessions/\(id)/pause; it was not done"), "\(pause.text)")

        kill(a.process.processIdentifier, SIGCONT)
        try await eventually(15, "B to see A online again") {
            try await HTTP.get(b.base + "/api/hosts").json(HostList.self).hosts.first { $0.name == "alpha" }?.online == true
        }
        try await Task.sleep(for: .seconds(2))
        #expect(Self.processState(pid) != "T", "the withdrawn pause was not carried out when A came back")
        let status = try await HTTP.get(baseA + "/api/sessions/\(id)/status").json(Session.self)
        #expect(status.mode == .live, "\(status)")
        // And a pause sent now is carried out.
        let again = try await HTTP.request(b.base + "/api/sessions/\(id)/pause", method: .POST)
        #expect(again.status == 200, "\(again.text)")
        try await eventually(5, "A's ralph to be stopped by the pause") { Self.processState(pid) == "T" }
        _ = try await HTTP.request(b.base + "/api/sessions/\(id)/resume", method: .POST)
    }

    @Test("keys are the cluster's: a file key of A works on C, a key made on A works on C, a revocation on C applies on A within a second, and a keys file cannot bring it back")
    func sharedKeys() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let url = try await PostgresServer.shared().makeDatabase()
        let dataA = tmp.subdirectory("data-alpha")
        let (fileKey, fileSecret) = try KeyStore(path: dataA + "/keys.json").create(role: .admin, name: "alpha's file")
        let workspaceA = Self.workspace(tmp, "ws-a", behaviour: "iterations: 1")
        let a = try await Self.liveHost(tmp, url: url, name: "alpha", workspace: workspaceA)
        let c = try await Self.liveHost(tmp, url: url, name: "charlie", workspace: Self.workspace(tmp, "ws-c", behaviour: "iterations: 1"))
        defer { Task { await c.stop() } }
        let admin = [("X-Api-Key", fileSecret)]
        #expect(try await HTTP.get(c.base + "/api/sessions").status == 401, "the cluster has keys: C asks for one")
        #expect(try await HTTP.get(c.base + "/api/sessions", headers: admin).status == 200, "A's file key works on C")

        let made = try await HTTP.request(a.base + "/api/keys", method: .POST, headers: admin, body: #"{"role":"operator","name":"phone"}"#)
        #expect(made.status == 201, "\(made.text)")
        let phone = try made.json(CreatedAPIKey.self)
        try await eventually(2, "the key made on A to work on C") {
            try await HTTP.get(c.base + "/api/sessions", headers: [("X-Api-Key", phone.secret)]).status == 200
        }
        #expect(try await HTTP.get(c.base + "/api/keys", headers: [("X-Api-Key", phone.secret)]).status == 403, "with its role")
        let login = try await HTTP.request(
            a.base + "/api/login", method: .POST, headers: [("Origin", a.base)], body: #"{"key":"\#(phone.secret)"}"#)
        let cookie = try #require(login.headers["set-cookie"].first?.split(separator: ";").first.map(String.init), "\(login.text)")
        try await eventually(2, "the login on A to work on C") {
            try await HTTP.get(c.base + "/api/whoami", headers: [("Cookie", cookie)]).text.contains(#""role":"operator""#)
        }

        // Revoked on C: refused on A within a second, key and login alike.
        let revoked = try await HTTP.request(c.base + "/api/keys/\(phone.key.id)", method: .DELETE, headers: admin)
        #expect(revoked.status == 200, "\(revoked.text)")
        let start = ContinuousClock.now
        try await eventually(2, "A to refuse the revoked key") {
            try await HTTP.get(a.base + "/api/sessions", headers: [("X-Api-Key", phone.secret)]).status == 401
        }
        #expect(ContinuousClock.now - start < .milliseconds(1500))
        #expect(try await HTTP.get(a.base + "/api/whoami", headers: [("Cookie", cookie)]).status == 401)
        let listed = try await HTTP.get(a.base + "/api/keys", headers: admin).json(APIKeyList.self).keys.map(\.id)
        #expect(listed == [fileKey.id])

        // The file key revoked in the cluster stays revoked when A starts again with the file still holding it.
        let second = try await HTTP.request(c.base + "/api/keys", method: .POST, headers: admin, body: #"{"role":"admin"}"#).json(CreatedAPIKey.self)
        #expect(try await HTTP.request(c.base + "/api/keys/\(fileKey.id)", method: .DELETE, headers: [("X-Api-Key", second.secret)]).status == 200)
        await a.stop()
        let again = try await Self.liveHost(tmp, url: url, name: "alpha", workspace: workspaceA)
        defer { Task { await again.stop() } }
        #expect(try await HTTP.get(again.base + "/api/sessions", headers: admin).status == 401)
        #expect(try await HTTP.get(again.base + "/api/sessions", headers: [("X-Api-Key", second.secret)]).status == 200)

        // The command line manages the cluster's keys too.
        let viewer = try await Executable.run(["keys", "create", "--role", "viewer", "--name", "made by the CLI", "--database", url])
        let viewerSecret = try #require(viewer.stdout.split(separator: "\n").last.map(String.init), "\(viewer.stderr)")
        try await eventually(2, "the key made from the command line to work on A") {
            try await HTTP.get(again.base + "/api/sessions", headers: [("X-Api-Key", viewerSecret)]).status == 200
        }
        let cli = try await Executable.run(["keys", "list", "--database", url])
        #expect(cli.status == 0 && cli.stdout.contains(second.key.id) && cli.stdout.contains("made by the CLI") && !cli.stdout.contains(fileKey.id), "\(cli.stdout) \(cli.stderr)")
        let revokedByCLI = try await Executable.run(["keys", "revoke", second.key.id, "--database", url])
        #expect(revokedByCLI.status == 0, "\(revokedByCLI.stderr)")
        try await eventually(2, "A to refuse the key revoked from the command line") {
            try await HTTP.get(again.base + "/api/sessions", headers: [("X-Api-Key", second.secret)]).status == 401
        }
        let wrong = try await Executable.run(["keys", "list", "--database", "postgres://nobody@127.0.0.1:1/none"])
        #expect(wrong.status != 0 && wrong.stderr.contains("cannot use the database postgres://nobody@127.0.0.1:1/none") && wrong.stderr.contains("Connection refused"), "\(wrong.stderr)")
    }

    /// The state letter of a process (`R`, `S`, `T` for stopped …), from /proc.
    static func processState(_ pid: Int) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
    }
}

/// Conversations and streams across the hosts of a cluster.
@Suite("A cluster: conversations and streams across hosts", .serialized)
struct ClusterChatTests {
    @Test("a conversation on host A is listed and streamed on B; a message sent to B is run by A's CLI, and its approval decided on B reaches it")
    func conversationOfAFromB() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let url = try await PostgresServer.shared().makeDatabase()
        let anthropic = try await FakeAnthropic.start(log: tmp.path + "/anthropic.log")
        let claude = try RealClaude.require()
        let home = tmp.subdirectory("claude-home")
        let a = try await LiveServer.start(workspaces: [ClusterTests.workspace(tmp, "ws-a", behaviour: "iterations: 1")], dataDirectory: tmp.subdirectory("data-a")) {
            $0.databaseURL = url
            $0.hostName = "alpha"
            $0.claudeCommand = claude
            $0.chatEnvironment = RealClaude.environment(home: home, apiBase: anthropic.base)
        }
        let b = try await ClusterTests.liveHost(tmp, url: url, name: "bravo", workspace: ClusterTests.workspace(tmp, "ws-b", behaviour: "iterations: 1"))
        defer {
            Task {
                await b.stop()
                await a.stop()
                await anthropic.stop()
            }
        }
        // Made from B for A: A's CLI will run it, in A's workspace.
        let nowhere = try await HTTP.request(b.base + "/api/conversations", method: .POST, body: #"{"cwd":"proj","host":"nowhere"}"#)
        #expect(nowhere.status == 400 && nowhere.text.contains("no host 'nowhere' in the cluster (hosts: bravo, alpha)"), "\(nowhere.text)")
        let created = try await HTTP.request(b.base + "/api/conversations", method: .POST, body: #"{"cwd":"proj","host":"alpha"}"#)
        #expect(created.status == 201, "\(created.text)")
        let conversation = try created.json(Conversation.self)
        #expect(conversation.hostId == a.server.hosts.id && conversation.host == "alpha", "\(conversation)")
        let listed = try await HTTP.get(b.base + "/api/conversations").json(Page<Conversation>.self).items
        #expect(listed.map(\.id) == [conversation.id] && listed.first?.hostId == conversation.hostId && conversation.hostId != nil)

        let stream = try await SSETestClient.connect(b.base + "/api/conversations/\(conversation.id)/events", headers: [("Last-Event-ID", "0")])
        let message = try JSONSerialization.data(withJSONObject: ["text": model(["bash touch made-from-b.txt"], ["bash touch second.txt"], ["say Done."])])
        let sent = try await HTTP.request(b.base + "/api/conversations/\(conversation.id)/messages", method: .POST, body: String(decoding: message, as: UTF8.self))
        #expect(sent.status == 202, "\(sent.text)")
        let asked = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        let approval = try #require(asked["approval_id"] as? String)
        #expect(try await HTTP.get(b.base + "/api/approvals?state=pending").json(ApprovalList.self).approvals.map(\.id) == [approval])
        let decided = try await HTTP.request(b.base + "/api/approvals/\(approval)", method: .POST, body: #"{"decision":"allow"}"#)
        #expect(decided.status == 200, "\(decided.text)")
        // The second one decided in a batch sent to B.
        let secondAsked = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        let second = try #require(secondAsked["approval_id"] as? String)
        let batch = try await HTTP.request(b.base + "/api/approvals", method: .POST, body: #"{"ids":["\#(second)"],"decision":"allow"}"#)
        let results = try batch.json(BatchApprovalResponse.self).results
        #expect(results.map { $0.id } == [second] && results.first?.approval?.state == ApprovalState.allowed && results.first?.error == nil, "\(batch.text)")
        let rest = try await stream.messages(until: "complete", timeout: 30)
        #expect(rest.contains { $0.event == "tool_end" } && text(of: rest).hasSuffix("Done."))
        #expect(FileManager.default.fileExists(atPath: tmp.path + "/ws-a/proj/made-from-b.txt"), "A's CLI ran it, in A's workspace")
        #expect(FileManager.default.fileExists(atPath: tmp.path + "/ws-a/proj/second.txt"))
    }

    @Test("a client streaming a run from one server that dies resumes on another with Last-Event-ID: nothing lost, nothing twice")
    func failover() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let url = try await PostgresServer.shared().makeDatabase()
        let (a, baseA) = try await ClusterTests.processHost(tmp, url: url, name: "alpha", workspace: ClusterTests.workspace(tmp, "ws-a", behaviour: "iterations: 30\npace: 0.15"))
        defer { a.stop() }
        let b = try await ClusterTests.liveHost(tmp, url: url, name: "bravo", workspace: ClusterTests.workspace(tmp, "ws-b", behaviour: "iterations: 1"))
        defer { Task { await b.stop() } }
        let c = try await ClusterTests.liveHost(tmp, url: url, name: "charlie", workspace: ClusterTests.workspace(tmp, "ws-c", behaviour: "iterations: 1"))
        let id = try await ClusterTests.startRun(baseA)
        try await eventually(15, "C to know the run") { try await HTTP.get(c.base + "/api/sessions/\(id)/status").status == 200 }

        var received: [String] = []
        let first = try await SSETestClient.connect(c.base + "/api/sessions/\(id)/events?history=all")
        while received.count < 8 {
            let message = try await first.nextMessage(timeout: 15)
            if message.event == "workflow", let eventID = message.id { received.append(eventID) }
        }
        first.cancel()
        await c.stop()
        let resumed = try await SSETestClient.connect(b.base + "/api/sessions/\(id)/events", headers: [("Last-Event-ID", try #require(received.last))])
        for message in try await resumed.messagesUntilClosed(timeout: 30) where message.event == "workflow" {
            if let eventID = message.id { received.append(eventID) }
        }
        let all = try await ClusterTests.events(baseA, id).compactMap(\.id)
        #expect(received == all && Set(received).count == received.count, "\(received.count) received, \(all.count) in the run")
    }

    @Test("a clustered server whose database went away still stops when asked: after its runs' grace and ten seconds at most, saying why")
    func stopsWithoutItsDatabase() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let postgres = try await PostgresServer.start()
        let url = try await postgres.makeDatabase()
        // processHost gives runs a 3 s grace: the deadline is 13 s.
        let (a, baseA) = try await ClusterTests.processHost(tmp, url: url, name: "alpha", workspace: ClusterTests.workspace(tmp, "ws-a", behaviour: "iterations: 200\npace: 0.1"))
        defer { a.stop(within: 1) }
        let id = try await ClusterTests.startRun(baseA)
        let pid = try #require(try await HTTP.get(baseA + "/api/sessions/\(id)/status").json(Session.self).pid)
        defer { kill(pid_t(pid), SIGKILL) }
        // The database goes (immediate stop) while the run writes: the host's publishing and notifications wait on it.
        await postgres.stop()
        try await Task.sleep(for: .seconds(3))
        let asked = ContinuousClock.now
        let status = try await a.terminate(within: 25)
        let took = ContinuousClock.now - asked
        #expect(took < .seconds(20), "stopped after \(took)")
        // Either it managed a graceful stop, or it says why it gave up.
        #expect(status == 0 || a.log.value.contains("did not finish stopping within 13 s"), "exit \(status): \(a.log.value.suffix(600))")
    }

    @Test("the database restarted while a run writes: every server reconnects and resynchronises, and its stream loses and repeats nothing")
    func databaseRestart() async throws {
        let tmp = TemporaryDirectory("rm-cluster")
        let postgres = try await PostgresServer.start()
        defer { Task { await postgres.stop() } }
        let url = try await postgres.makeDatabase()
        let (a, baseA) = try await ClusterTests.processHost(tmp, url: url, name: "alpha", workspace: ClusterTests.workspace(tmp, "ws-a", behaviour: "iterations: 40\npace: 0.15"))
        defer { a.stop() }
        let b = try await ClusterTests.liveHost(tmp, url: url, name: "bravo", workspace: ClusterTests.workspace(tmp, "ws-b", behaviour: "iterations: 1"))
        defer { Task { await b.stop() } }
        let id = try await ClusterTests.startRun(baseA)
        try await eventually(15, "B to know the run") { try await HTTP.get(b.base + "/api/sessions/\(id)/status").status == 200 }
        let stream = try await SSETestClient.connect(b.base + "/api/sessions/\(id)/events?history=all")
        var received: [String] = []
        while received.count < 5 {
            let message = try await stream.nextMessage(timeout: 15)
            if message.event == "workflow", let eventID = message.id { received.append(eventID) }
        }
        try await postgres.restart(downFor: 2)
        for message in try await stream.messagesUntilClosed(timeout: 60) where message.event == "workflow" {
            if let eventID = message.id { received.append(eventID) }
        }
        let all = try await ClusterTests.events(baseA, id).compactMap(\.id)
        #expect(received == all && Set(received).count == received.count, "\(received.count) received, \(all.count) in the run")
        try await eventually(15, "the hosts to see each other again") {
            try await HTTP.get(b.base + "/api/hosts").json(HostList.self).hosts.allSatisfy(\.online)
        }
    }
}
