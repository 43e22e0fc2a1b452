import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import Testing

@testable import RalphMobileServer

@Suite("Session routes against a real server and real files")
struct SessionRoutesTests {
    /// A finished run in `alpha/` and two runs in the root's own `.ralph`.
    static func makeWorkspace(_ tmp: TemporaryDirectory) -> (root: String, alphaRun: String, oldRun: String, newerRun: String) {
        let root = tmp.subdirectory("root")
        let alpha = root + "/alpha"
        Fixture.write("event_loop:\n  max_iterations: 25\n", to: alpha + "/ralph.yml")
        let alphaRun = Fixture.run(
            in: alpha, name: "events-20260205-083922.jsonl",
            lines: [
                Fixture.record("task.start", "Ship the login page\nwith tests", iteration: 0, hat: "loop", triggered: "planner", at: Fixture.date("2026-02-05T08:39:22.5Z")),
                Fixture.record("build.task", "Task 1", iteration: 1, hat: "planner", triggered: "builder", at: Fixture.date("2026-02-05T08:40:00Z")),
                Fixture.emit("progress.note", "agent wrote this", at: Fixture.date("2026-02-05T08:40:30Z")),
                Fixture.record("build.done", "tests: pass\nlint: pass\ntypecheck: fail", iteration: 2, hat: "builder", triggered: "reviewer", at: Fixture.date("2026-02-05T08:42:00Z")),
                Fixture.terminate("completed", iterations: 2, at: Fixture.date("2026-02-05T08:45:00Z")),
            ]
        )
        Fixture.write("# Scratchpad\n- [x] login page\n", to: alpha + "/.ralph/agent/scratchpad.md")
        let oldRun = Fixture.run(
            in: root, name: "events-20260101-000000.jsonl",
            lines: [Fixture.record("task.start", "Old task", iteration: 0, hat: "loop", triggered: "planner", at: Fixture.date("2026-01-01T00:00:00Z"))]
        )
        let newerRun = Fixture.run(
            in: root, name: "events-20260301-120000.jsonl",
            lines: [Fixture.record("task.start", "Newer task", iteration: 0, hat: "loop", triggered: "planner", at: Fixture.date("2026-03-01T12:00:00Z"))]
        )
        return (root, alphaRun, oldRun, newerRun)
    }

    @Test("the list shows every run with real values, newest first")
    func listShowsRealValues() async throws {
        let tmp = TemporaryDirectory()
        let w = Self.makeWorkspace(tmp)
        let server = try await LiveServer.start(workspaces: [w.root], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }

        let result = try await HTTP.get(server.base + "/api/sessions")
        #expect(result.status == 200)
        let sessions = try result.json([Session].self)
        #expect(sessions.map(\.id) == [Fixture.id(w.newerRun), Fixture.id(w.alphaRun), Fixture.id(w.oldRun)])
        let alpha = try #require(sessions.first { $0.id == Fixture.id(w.alphaRun) })
        #expect(alpha.iteration == 2)
        #expect(alpha.hat == "reviewer")
        #expect(alpha.total == 25)
        #expect(alpha.mode == .complete)
        #expect(alpha.status == .completed)
        #expect(alpha.startedAt == "2026-02-05T08:39:22.500Z")
        #expect(alpha.lastEventAt == "2026-02-05T08:45:00.000Z")
        #expect(alpha.elapsedSecs == 337)
        #expect(alpha.eventCount == 5)
        #expect(alpha.taskName == "Ship the login page")
        #expect(alpha.workspace == "alpha")
        #expect(alpha.path == "alpha/.ralph/events-20260205-083922.jsonl")
        #expect(alpha.pid == nil)
        let old = try #require(sessions.first { $0.id == Fixture.id(w.oldRun) })
        #expect(old.workspace == ".")
        #expect(old.status == .stopped)
        #expect(old.total == nil)
    }

    @Test("status, detail, iterations and scratchpad come from the run's events and files")
    func statusDetailIterationsScratchpad() async throws {
        let tmp = TemporaryDirectory()
        let w = Self.makeWorkspace(tmp)
        let server = try await LiveServer.start(workspaces: [w.root], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let id = Fixture.id(w.alphaRun)

        let status = try await HTTP.get(server.base + "/api/sessions/\(id)/status").json(Session.self)
        #expect(status.id == id && status.iteration == 2 && status.mode == .complete && status.status == .completed)

        let detail = try await HTTP.get(server.base + "/api/sessions/\(id)").json(SessionDetail.self)
        #expect(detail.session.id == id)
        #expect(detail.stopReason?.reason == "completed")
        #expect(detail.stopReason?.iterations == 2)
        #expect(detail.hatFlow.map(\.to) == ["planner", "builder", "reviewer"])
        #expect(detail.hatFlow.map(\.topic) == ["task.start", "build.task", "build.done"])
        #expect(detail.backpressure?.tests == true)
        #expect(detail.backpressure?.typecheck == false)
        #expect(detail.iterationStats.count == 2)
        #expect(detail.iterationStats.total == 25)
        #expect(detail.recentEvents.count == 5)
        #expect(detail.lineCount == 5)
        #expect(detail.pendingQuestion == nil)

        let iterations = try await HTTP.get(server.base + "/api/sessions/\(id)/iterations").json(IterationsResponse.self)
        #expect(iterations.total == 2)
        #expect(iterations.iterations.map(\.number) == [1, 2])
        #expect(iterations.iterations.map(\.hat) == ["planner", "builder"])
        #expect(iterations.iterations[0].startedAt == "2026-02-05T08:39:22.500Z")
        // Iteration 2 ran from iteration 1's last record to its own, and ended with loop.terminate.
        #expect(iterations.iterations[1].durationSecs == 300)
        #expect(iterations.iterations.map(\.eventCount) == [1, 1])

        let scratchpad = try await HTTP.get(server.base + "/api/sessions/\(id)/scratchpad").json(ScratchpadResponse.self)
        #expect(scratchpad.content == "# Scratchpad\n- [x] login page\n")
        #expect(scratchpad.updatedAt != nil)
        #expect(scratchpad.path == "alpha/.ralph/agent/scratchpad.md")

        let empty = try await HTTP.get(server.base + "/api/sessions/\(Fixture.id(w.oldRun))/scratchpad").json(ScratchpadResponse.self)
        #expect(empty.content == "" && empty.updatedAt == nil)
    }

    @Test("a run whose loop holds loop.lock is live, with the lock holder's pid")
    func liveRunFromLock() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let writer = try RalphRunWriter(workspace: root + "/proj")
        try writer.begin(prompt: "Live task")
        try writer.record(topic: "task.start", payload: "Live task", iteration: 0, hat: "loop", triggered: "planner")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let id = Fixture.id(writer.eventsFile)

        let session = try await HTTP.get(server.base + "/api/sessions/\(id)/status").json(Session.self)
        #expect(session.mode == .live)
        #expect(session.status == .running)
        #expect(session.pid == Int(getpid()))
        #expect(session.hat == "planner")

        // The loop ends: lock released and loop.terminate written.
        try writer.terminate(reason: "interrupted", status: "Interrupted by signal.", iterations: 0, exitCode: 130)
        try await eventually(5, "the run to become complete") {
            let s = try await HTTP.get(server.base + "/api/sessions/\(id)/status").json(Session.self)
            return s.mode == .complete && s.status == .stopped
        }
        let detail = try await HTTP.get(server.base + "/api/sessions/\(id)").json(SessionDetail.self)
        #expect(detail.stopReason?.reason == "interrupted")
        #expect(detail.stopReason?.exitCode == 130)
    }

    @Test("new runs appear and deleted runs disappear without a restart")
    func discoveryKeepsCurrent() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        #expect(try await HTTP.get(server.base + "/api/sessions").json([Session].self).isEmpty)

        // A project created after start, a worktree, and a legacy .agent layout.
        let a = Fixture.run(in: root + "/later", name: "events-20260401-000000.jsonl", lines: [Fixture.record("task.start", "A", iteration: 0, hat: "loop")])
        let b = Fixture.run(in: root + "/later/.worktrees/feature-x", name: "events-20260402-000000.jsonl", lines: [Fixture.emit("task.start", "B")])
        Fixture.write(Fixture.emit("task.start", "C") + "\n", to: root + "/legacy/.agent/events.jsonl")
        let c = root + "/legacy/.agent/events.jsonl"
        try await eventually(5, "three runs") { try await HTTP.get(server.base + "/api/sessions").json([Session].self).count == 3 }
        let sessions = try await HTTP.get(server.base + "/api/sessions").json([Session].self)
        #expect(Set(sessions.map(\.id)) == Set([a, b, c].map(Fixture.id)))
        #expect(Set(sessions.map(\.workspace)) == ["later", "later/.worktrees/feature-x", "legacy"])

        try FileManager.default.removeItem(atPath: a)
        try await eventually(5, "the deleted run to disappear") { try await HTTP.get(server.base + "/api/sessions").json([Session].self).count == 2 }
        #expect(try await HTTP.get(server.base + "/api/sessions/\(Fixture.id(a))/status").status == 404)
    }

    @Test("ids: unique prefixes of 4+ hex chars resolve; others get clear errors")
    func idPrefixes() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        // Two run files whose ids share their first 4 hex chars.
        var byPrefix: [String: String] = [:]
        var pair: (String, String)?
        var n = 0
        while pair == nil {
            let name = "events-20260101-\(String(format: "%06d", n)).jsonl"
            let path = FileSystem.realPath(root)! + "/.ralph/" + name
            let prefix = String(RunID.make(forPath: path).prefix(4))
            if let other = byPrefix[prefix] { pair = (other, name) } else { byPrefix[prefix] = name }
            n += 1
        }
        let first = Fixture.run(in: root, name: pair!.0, lines: [Fixture.emit("task.start", "one")])
        let second = Fixture.run(in: root, name: pair!.1, lines: [Fixture.emit("task.start", "two")])
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let id1 = Fixture.id(first)
        let id2 = Fixture.id(second)
        #expect(id1.prefix(4) == id2.prefix(4))

        let ambiguous = try await HTTP.get(server.base + "/api/sessions/\(id1.prefix(4))/status")
        #expect(ambiguous.status == 409)
        #expect(ambiguous.text.contains("conflict: ambiguous id"))
        let unique = id1.commonPrefix(with: id2).count + 1
        #expect(try await HTTP.get(server.base + "/api/sessions/\(id1.prefix(unique))/status").json(Session.self).id == id1)
        #expect(try await HTTP.get(server.base + "/api/sessions/\(id2.uppercased())/status").json(Session.self).id == id2)

        for bad in ["abc", "zzzz", "..%2Fx", "ffffffffffffffffff", String(repeating: "a", count: 5000)] {
            let result = try await HTTP.get(server.base + "/api/sessions/\(bad)/status")
            #expect(result.status == 404, "id \(bad.prefix(20))")
            #expect(try result.json(ErrorResponse.self).prefix == .sessionNotFound)
        }
        let short = try await HTTP.get(server.base + "/api/sessions/abc")
        #expect(short.text.contains("at least 4 characters"))
        // A path-like id never reaches a file: `..` is not a route parameter the router hands over.
        #expect(try await HTTP.get(server.base + "/api/sessions/../etc/passwd").status == 404)
    }

    @Test("health routes, JSON 404 for unknown routes, 405 with Allow for a wrong method")
    func healthAndErrors() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }

        let plain = try await HTTP.get(server.base + "/health")
        #expect(plain.status == 200 && plain.text == "OK")
        let health = try await HTTP.get(server.base + "/api/health").json(HealthResponse.self)
        #expect(health.status == "ok" && health.version == RalphMobileVersion.current && health.protocolVersion == 1)
        #expect(health.capabilities.contains("session_events"))
        #expect(health.authRequired == false)

        let missing = try await HTTP.get(server.base + "/nope")
        #expect(missing.status == 404)
        #expect(missing.headers["content-type"].first?.hasPrefix("application/json") == true)
        #expect(try missing.json(ErrorResponse.self).prefix == .notFound)

        let wrong = try await HTTP.request(server.base + "/api/sessions", method: .DELETE)
        #expect(wrong.status == 405)
        #expect(wrong.headers["allow"].first == "GET, POST")
        #expect(try wrong.json(ErrorResponse.self).prefix == .methodNotAllowed)
    }
}
