import AgentRunner
import Foundation
import RalphAPI
import Testing

/// Runs the built `ralph-mobile-server` executable (next to the test bundle in the build directory).
struct Executable {
    static var path: String { Products.path("ralph-mobile-server") }

    /// Runs to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Products.Output {
        try await Products.run("ralph-mobile-server", arguments, environment: environment)
    }

    /// A server process running in the background; its stderr is collected.
    final class Server: Sendable {
        let process: Process
        let log = Locked("")

        init(_ arguments: [String], environment: [String: String] = [:]) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: Executable.path)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["RALPH_MOBILE_API_KEY"] = nil
            env.merge(environment) { _, given in given }
            process.environment = env
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            let log = self.log
            err.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                log.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
        }

        /// The port from the "listening on http://host:port" log line.
        func port() async throws -> Int {
            let port = Locked<Int?>(nil)
            try await eventually(20, "the server to log its address") {
                let text = self.log.value
                guard let range = text.range(of: "listening on http://127.0.0.1:") else { return false }
                port.withLock { $0 = Int(text[range.upperBound...].prefix { $0.isNumber }) }
                return port.value != nil
            }
            return port.value!
        }

        /// SIGTERM, and the test fails unless the server exits within `seconds`; it is killed then, so that no test
        /// leaves a server behind. For `defer`.
        func stop(within seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) {
            guard process.isRunning else { return }
            process.terminate()
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            guard process.isRunning else { return }
            let tail = String(log.value.suffix(3000))
            Issue.record("the server did not exit within \(seconds) s of SIGTERM; its last log:\n\(tail)", sourceLocation: sourceLocation)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }

        /// SIGTERM, then the exit status.
        func terminate(within seconds: Double = 15) async throws -> Int32 {
            process.terminate()
            try await eventually(seconds, "the server to exit") { !self.process.isRunning }
            return process.terminationStatus
        }
    }
}

@Suite("The ralph-mobile-server command line")
struct CommandLineTests {
    @Test("--help names every option and the keys command; --version prints the version")
    func helpAndVersion() async throws {
        let help = try await Executable.run(["--help"])
        #expect(help.status == 0)
        for option in ["--port", "--bind-all", "--bind <addr>", "--workspace <dir>", "--api-key <key>", "--data-dir <dir>", "--log-level <level>", "--demo", "keys", "SUBCOMMANDS"] {
            #expect(help.stdout.contains(option), "help mentions \(option)")
        }
        #expect(!help.stdout.contains("--demo-pace"), "test-only options stay hidden")
        let version = try await Executable.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == RalphMobileVersion.current)
    }

    @Test("keys create, list and revoke manage the keys file")
    func keysCommand() async throws {
        let tmp = TemporaryDirectory()
        let data = tmp.path + "/data"
        let created = try await Executable.run(["keys", "create", "--role", "operator", "--name", "phone", "--data-dir", data])
        #expect(created.status == 0)
        let secret = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("rmk_") })
        let id = try #require(created.stdout.split(separator: " ").first { $0.hasPrefix("k_") })
        let list = try await Executable.run(["keys", "list", "--data-dir", data])
        #expect(list.status == 0)
        #expect(list.stdout.contains(String(id)) && list.stdout.contains("operator") && list.stdout.contains("phone"))
        #expect(!list.stdout.contains(String(secret)), "list never shows a key")
        let mode = try FileManager.default.attributesOfItem(atPath: data + "/keys.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let badRole = try await Executable.run(["keys", "create", "--role", "root", "--data-dir", data])
        #expect(badRole.status != 0)
        #expect(badRole.stderr.contains("--role must be admin, operator or viewer"))
        let revoked = try await Executable.run(["keys", "revoke", String(id), "--data-dir", data])
        #expect(revoked.status == 0 && revoked.stdout.contains("Revoked operator key"))
        let again = try await Executable.run(["keys", "revoke", String(id), "--data-dir", data])
        #expect(again.status != 0 && again.stderr.contains("no key with id"))
        #expect(try await Executable.run(["keys", "list", "--data-dir", data]).stdout.contains("No keys"))
    }

    @Test("bad flags and an open bind without a key fail with a clear message")
    func refusals() async throws {
        let tmp = TemporaryDirectory()
        let data = tmp.path + "/data"
        let open = try await Executable.run(["--bind-all", "--data-dir", data, "--workspace", tmp.path])
        #expect(open.status == 1)
        #expect(open.stderr.contains("refusing to listen on 0.0.0.0 without an API key"))
        let both = try await Executable.run(["--bind-all", "--bind", "10.0.0.1", "--data-dir", data])
        #expect(both.status != 0 && both.stderr.contains("either --bind-all or --bind"))
        let level = try await Executable.run(["--log-level", "loud", "--data-dir", data])
        #expect(level.status != 0 && level.stderr.contains("--log-level must be one of"))
        let missing = try await Executable.run(["--workspace", tmp.path + "/nope", "--data-dir", data])
        #expect(missing.status == 1 && missing.stderr.contains("is not an existing directory"))
    }

    @Test("--demo shows a live ralph loop through the real discovery and tail path, and SIGTERM stops cleanly")
    func demoRun() async throws {
        let tmp = TemporaryDirectory()
        let empty = tmp.subdirectory("empty")
        let server = try Executable.Server(["--demo", "--demo-pace", "0.05", "--port", "0", "--data-dir", tmp.path + "/data", "--workspace", empty])
        let port = try await server.port()
        let base = "http://127.0.0.1:\(port)"
        let live = Locked<Session?>(nil)
        try await eventually(10, "a live demo session") {
            let found = try await HTTP.get(base + "/api/sessions").json([Session].self).first { $0.mode == .live }
            live.withLock { $0 = found }
            return found != nil
        }
        let session = try #require(live.value)
        #expect(session.workspace == "ralph-demo")
        #expect(session.total == 12)
        #expect(FileManager.default.fileExists(atPath: tmp.path + "/data/demo/ralph-demo/.ralph/current-events"))

        // Follow it to the end: planner → builder → reviewer, a question, backpressure, loop.terminate, end.
        let stream = try await SSETestClient.connect(base + "/api/sessions/\(session.id)/events?history=all")
        let messages = try await stream.messagesUntilClosed(timeout: 20)
        let topics = messages.compactMap { $0.json["topic"] as? String }
        #expect(topics.first == "task.start")
        #expect(topics.contains("human.interact") && topics.contains("build.blocked") && topics.contains("build.done"))
        #expect(messages.last?.event == "end")
        #expect(messages.last?.json["status"] as? String == "completed")
        let detail = try await HTTP.get(base + "/api/sessions/\(session.id)").json(SessionDetail.self)
        #expect(detail.hatFlow.map(\.to).prefix(3) == ["planner", "builder", "reviewer"])
        #expect(detail.backpressure?.tests == true)
        #expect(detail.stopReason?.reason == "completed")

        #expect(try await server.terminate() == 0)
    }

    @Test("the demo loop runs in its own process: pause, resume and stop reach it, never the server; it restarts, and ends with the server")
    func demoControls() async throws {
        let tmp = TemporaryDirectory()
        // A pace slow enough that the run stays live while it is paused, resumed and stopped.
        let server = try Executable.Server(["--demo", "--demo-pace", "1", "--port", "0", "--data-dir", tmp.path + "/data", "--workspace", tmp.subdirectory("empty")])
        let base = "http://127.0.0.1:\(try await server.port())"
        let live = Locked<Session?>(nil)
        try await eventually(10, "a live demo session") {
            let found = try await HTTP.get(base + "/api/sessions").json([Session].self).first { $0.mode == .live && $0.pid != nil }
            live.withLock { $0 = found }
            return found != nil
        }
        let run = try #require(live.value)
        let demoPID = try #require(run.pid)
        #expect(demoPID != Int(server.process.processIdentifier), "the loop is not the server")
        #expect(try await HTTP.request(base + "/api/sessions/\(run.id)/pause", method: .POST).status == 200)
        #expect(ProcessInspector.snapshot(demoPID)?.isStopped == true)
        #expect(try await HTTP.get(base + "/api/health").status == 200, "the server still answers")
        #expect(try await HTTP.get(base + "/api/sessions/\(run.id)/status").json(Session.self).mode == .paused)
        #expect(try await HTTP.request(base + "/api/sessions/\(run.id)/resume", method: .POST).status == 200)
        #expect(ProcessInspector.snapshot(demoPID)?.isStopped == false)
        let stop = try await HTTP.request(base + "/api/sessions/\(run.id)?force=true", method: .DELETE)
        #expect(stop.status == 200, "\(stop.text)")
        #expect(try stop.json(StopSessionResponse.self).terminated)
        #expect(try await HTTP.get(base + "/api/sessions/\(run.id)").json(SessionDetail.self).stopReason?.reason == "interrupted")
        #expect(try await HTTP.get(base + "/api/health").status == 200)

        // After its rest the demo goes on with a new run, in a new process; it ends with the server.
        let next = Locked<Session?>(nil)
        try await eventually(20, "a new demo run after the stop") {
            let found = try await HTTP.get(base + "/api/sessions").json([Session].self).first { $0.mode == .live && $0.id != run.id && $0.pid != nil }
            next.withLock { $0 = found }
            return found != nil
        }
        let loopPID = try #require(next.value?.pid)
        #expect(loopPID != demoPID)
        #expect(try await server.terminate() == 0)
        try await eventually(5, "the demo loop to end with the server") { ProcessInspector.snapshot(loopPID) == nil }
    }
}
