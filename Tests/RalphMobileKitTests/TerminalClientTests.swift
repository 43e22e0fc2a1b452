import AgentRunner
import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The `ralph-mobile` executable, run as a user would: plain commands with their output, and `watch` inside tmux.
@Suite("The ralph-mobile terminal client")
struct TerminalClientTests {
    /// Runs `ralph-mobile` with a private config directory.
    static func cli(_ arguments: [String], config: String, environment: [String: String] = [:]) async throws -> Products.Output {
        try await Products.run("ralph-mobile", arguments, environment: ["RALPH_MOBILE_CONFIG_DIR": config, "NO_COLOR": "1"].merging(environment) { $1 })
    }

    @Test("sessions, status, events --json, emit and steer against the real server")
    func commands() async throws {
        let h = try await KitHarness.start()
        let config = h.tmp.subdirectory("cli")
        let (writer, id) = try await h.writeRun(prompt: "Ship the terminal client")
        try writer.record(topic: "build.task", payload: "write the dashboard", iteration: 1, hat: "planner", triggered: "builder")
        let server = ["--server", h.server.base]

        let sessions = try await Self.cli(["sessions"] + server, config: config)
        #expect(sessions.status == 0)
        let lines = sessions.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ID") == true && lines.first?.contains("LAST EVENT") == true)
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix(String(id.prefix(8))) == true)
        #expect(lines.last?.contains("live") == true && lines.last?.contains("builder") == true && lines.last?.contains("Ship the terminal client") == true, "the hat at work next: \(sessions.stdout)")

        let status = try await Self.cli(["status", String(id.prefix(6))] + server, config: config)
        #expect(status.status == 0, "a unique prefix is enough")
        #expect(status.stdout.contains("session \(id)") && status.stdout.contains("hat flow") && status.stdout.contains("planner"))

        #expect(try await Self.cli(["emit", id, "build.blocked", #"{"why":"tests"}"#] + server, config: config).status == 0)
        #expect(try await Self.cli(["steer", id, "Prefer", "small", "commits"] + server, config: config).status == 0)
        try writer.terminate(reason: "completed", status: "done", iterations: 1, exitCode: 0)
        let client = h.client
        try await eventually(5, "the run to complete") { try await client.status(id).mode == .complete }

        // A finished run's events, as JSON lines, then the command exits by itself.
        let events = try await Self.cli(["events", id, "--json", "--history", "all"] + server, config: config)
        #expect(events.status == 0)
        let objects = events.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.compactMap { $0["topic"] as? String } == ["task.start", "build.task", "build.blocked", "human.guidance", "loop.terminate"])
        #expect(events.stderr.contains("run ended: completed"))
        let plain = try await Self.cli(["events", id, "--history", "2"] + server, config: config)
        #expect(plain.stdout.split(separator: "\n").count == 2)
        #expect(plain.stdout.contains("human.guidance") && plain.stdout.contains("Prefer small commits"))
        await h.stop()
    }

    @Test("clear messages: unreachable server, refused key, unknown session, stop without confirmation")
    func errors() async throws {
        let h = try await KitHarness.start(apiKey: "rmk_cli_key_0123456789")
        let config = h.tmp.subdirectory("cli")

        let down = try await Self.cli(["sessions", "--server", "http://127.0.0.1:1"], config: config)
        #expect(down.status == 1)
        #expect(down.stderr.contains("cannot reach http://127.0.0.1:1") && down.stderr.contains("is ralph-mobile-server running"))

        let refused = try await Self.cli(["sessions", "--server", h.server.base, "--api-key", "rmk_wrong"], config: config)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused the API key"))

        let unknown = try await Self.cli(["status", "ffffffffffffffff", "--server", h.server.base, "--api-key", "rmk_cli_key_0123456789"], config: config)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no such session"))

        let (writer, id) = try await h.writeRun()
        let unconfirmed = try await Self.cli(["stop", id, "--server", h.server.base], config: config, environment: ["RALPH_MOBILE_API_KEY": "rmk_cli_key_0123456789"])
        #expect(unconfirmed.status == 1)
        #expect(unconfirmed.stderr.contains("--yes"))
        #expect(try await h.client.status(id).mode == .live, "nothing was stopped")

        let badURL = try await Self.cli(["sessions", "--server", "ftp://box"], config: config)
        #expect(badURL.status == 1 && badURL.stderr.contains("not a server URL"))
        writer.releaseLock()
        await h.stop()
    }

    @Test("servers add checks the server and keeps the key out of servers.json; later commands use the default")
    func savedServers() async throws {
        let h = try await KitHarness.start(apiKey: "rmk_saved_key_0123456789")
        let config = h.tmp.subdirectory("cli")
        let noKey = try await Self.cli(["servers", "add", h.server.base, "--name", "box"], config: config)
        #expect(noKey.status == 1 && noKey.stderr.contains("requires an API key"), "\(noKey.stderr)")
        let added = try await Self.cli(["servers", "add", h.server.base, "--name", "box", "--api-key", "rmk_saved_key_0123456789"], config: config)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("saved box") && added.stdout.contains("default"))
        #expect(!(try String(contentsOfFile: config + "/servers.json", encoding: .utf8)).contains("rmk_saved_key"))
        let mode = (try FileManager.default.attributesOfItem(atPath: config + "/secrets.json")[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600)
        let list = try await Self.cli(["servers", "list"], config: config)
        #expect(list.stdout.contains("* box") && list.stdout.contains("(key saved)"))
        // No --server, no --api-key: the saved default and its key.
        let sessions = try await Self.cli(["sessions"], config: config)
        #expect(sessions.status == 0, "\(sessions.stderr)")
        #expect(try await Self.cli(["servers", "remove", "box"], config: config).status == 0)
        #expect(try await Self.cli(["servers", "list"], config: config).stdout.contains("no saved servers"))
        await h.stop()
    }

    @Test("watch under tmux: the dashboard shows events as they are appended, and p pauses and resumes from the keyboard")
    func watchUnderTmux() async throws {
        let h = try await KitHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.3")
        let tmux = try Tmux()
        do {
            try await watchSteps(h, id, tmux)
        } catch {
            await tmux.kill()
            throw error
        }
        await tmux.kill()
        await h.stop()
    }

    func watchSteps(_ h: KitHarness, _ id: String, _ tmux: Tmux) async throws {
        try await tmux.start(
            command: [Products.path("ralph-mobile"), "watch", id, "--server", h.server.base],
            environment: ["RALPH_MOBILE_CONFIG_DIR": h.tmp.subdirectory("cli")]
        )
        try await tmux.waitFor("the dashboard") { $0.contains("RALPH MOBILE") && $0.contains("● connected") }
        let screen = try await tmux.capture()
        #expect(screen.contains(String(id.prefix(8))) && screen.contains("live"))
        #expect(screen.contains("p pause") && screen.contains("q quit"))

        // An event appended to the run shows up on the screen.
        _ = try await h.client.emit(id, topic: "probe.appended", payload: .string("from the test"))
        try await tmux.waitFor("the appended event") { $0.contains("probe.appended") && $0.contains("from the test") }

        // p pauses the run for real (SIGSTOP, the server says paused); p again resumes it.
        try await tmux.send("p")
        let client = h.client
        try await eventually(10, "the run to be paused") { try await client.status(id).mode == .paused }
        try await tmux.waitFor("paused on screen") { $0.contains("paused — press p to resume") && $0.contains("p resume") }
        try await tmux.send("p")
        try await eventually(10, "the run to be resumed") { try await client.status(id).mode == .live }
        try await tmux.waitFor("resumed on screen") { $0.contains("resumed") && $0.contains("p pause") }

        // s asks first; anything but y keeps the run going; y stops it.
        try await tmux.send("s")
        try await tmux.waitFor("the confirmation") { $0.contains("Stop run \(id.prefix(8))?") }
        try await tmux.send("n")
        try await tmux.waitFor("not stopped") { $0.contains("not stopped") }
        #expect(try await client.status(id).mode == .live)
        try await tmux.send("s")
        try await tmux.waitFor("the confirmation again") { $0.contains("Stop run \(id.prefix(8))?") }
        try await tmux.send("y")
        // A graceful stop: ralph ends at its next iteration boundary with its own record (reason `stopped`).
        try await eventually(10, "the run to stop") { try await client.status(id).mode == .complete }
        try await tmux.waitFor("the end on screen") { $0.contains("run ended") && $0.contains("stopped") && $0.contains("○ disconnected") }

        try await tmux.send("q")
        try await eventually(5, "watch to quit") { await !tmux.isRunning }
    }
}

extension TerminalClientTests {
    @Test("chat under tmux: a typed message streams its reply; an approval is answered with a key; conversations and approvals commands")
    func chatUnderTmux() async throws {
        let h = try await KitHarness.start()
        let config = h.tmp.subdirectory("cli")
        // One-shot: create a conversation, send a message, print the reply.
        let once = try await Self.cli(["chat", "--new", "--cwd", "app", "-m", "hello once", "--server", h.server.base, "--no-color"], config: config)
        #expect(once.status == 0, "\(once.stderr)")
        #expect(once.stdout.contains("Echo: hello once"))
        #expect(once.stdout.contains("✓ done"))
        let list = try await Self.cli(["conversations", "--server", h.server.base, "--no-color"], config: config)
        #expect(list.stdout.contains("hello once"), "\(list.stdout)")
        let c = try #require(try await h.client.conversations().items.first)

        let tmux = try Tmux()
        do {
            try await tmux.start(
                command: [Products.path("ralph-mobile"), "chat", c.id, "--server", h.server.base],
                environment: ["RALPH_MOBILE_CONFIG_DIR": config]
            )
            try await tmux.waitFor("the chat header and history") { $0.contains(c.id) && $0.contains("Echo: hello once") }
            try await tmux.type("hello from tmux")
            try await tmux.waitFor("the streamed reply") { $0.contains("claude › Echo: hello from tmux") }
            // A tool call that needs approval, sent from elsewhere (a phone), shows up here and is answered with a key.
            _ = try await h.client.sendMessage(c.id, text: model(["bash touch deployed.txt && echo deployed"], ["say Deployed."]))
            try await tmux.waitFor("the approval prompt") { $0.contains("Bash needs your approval") && $0.contains("command: touch deployed.txt && echo deployed") && $0.contains("Bash(touch deployed.txt && echo deployed) for this session") }
            let pending = try await Self.cli(["approvals", "--server", h.server.base, "--no-color"], config: config)
            #expect(pending.stdout.contains("pending") && pending.stdout.contains("Bash"), "\(pending.stdout)")
            try await tmux.type("a")
            try await tmux.waitFor("the allowed tool and the reply") { $0.contains("allowed Bash") && $0.contains("↳ deployed") && $0.contains("Deployed.") }
            try await tmux.type("/quit")
            try await eventually(5, "chat to quit") { await !tmux.isRunning }
        } catch {
            await tmux.kill()
            await h.stop()
            throw error
        }
        await tmux.kill()
        let none = try await Self.cli(["approvals", "--server", h.server.base, "--no-color"], config: config)
        #expect(none.stdout.contains("nothing waiting"))
        await h.stop()
    }
}

/// A private tmux server (its own socket) running one command in a 120×40 window.
struct Tmux {
    let socket = "rm-test-\(UUID().uuidString.prefix(8))"

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") || Self.which("tmux") != nil else {
            throw TestFailure("tmux is not installed (apt-get install tmux); the terminal client is tested inside it")
        }
    }

    static func which(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a tmux command. Spawned with every other descriptor closed: the tmux server that `new-session` leaves
    /// behind must not hold anything of ours open (Foundation's Process waits for that to close before it reaps).
    @discardableResult
    func tmux(_ arguments: [String]) async throws -> Products.Output {
        let log = FileManager.default.temporaryDirectory.path + "/\(socket)-\(UUID().uuidString.prefix(8)).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try ChildProcess.spawn(
            Self.which("tmux") ?? "/usr/bin/tmux", arguments: ["-L", socket, "-f", "/dev/null"] + arguments,
            workingDirectory: FileManager.default.temporaryDirectory.path, environment: ProcessInfo.processInfo.environment, logFile: log
        )
        let exit = await child.waitForExit()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Products.Output(status: exit == .exited(0) ? 0 : 1, stdout: output, stderr: "")
    }

    func start(command: [String], environment: [String: String]) async throws {
        let env = environment.map { "\($0.key)=\(Self.quote($0.value))" }.joined(separator: " ")
        let line = "env \(env) " + command.map(Self.quote).joined(separator: " ")
        let result = try await tmux(["new-session", "-d", "-s", "w", "-x", "120", "-y", "40", line])
        guard result.status == 0 else { throw TestFailure("tmux new-session failed: \(result.stdout)") }
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    func capture() async throws -> String { try await tmux(["capture-pane", "-p", "-t", "w"]).stdout }

    func send(_ keys: String) async throws { try await tmux(["send-keys", "-t", "w", "-l", keys]) }

    /// Types a line and presses Enter.
    func type(_ line: String) async throws {
        try await send(line)
        try await tmux(["send-keys", "-t", "w", "Enter"])
    }

    var isRunning: Bool {
        get async { (try? await tmux(["has-session", "-t", "w"]).status) == 0 }
    }

    func waitFor(_ what: String, seconds: Double = 10, _ condition: (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var screen = ""
        while ContinuousClock.now < deadline {
            screen = try await capture()
            if condition(screen) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("timed out waiting for \(what); the screen was:\n\(screen)")
    }

    func kill() async { _ = try? await tmux(["kill-server"]) }
}

extension TerminalClientTests {
    @Test("auto-reply: set validates locally, start runs a 2-message loop to its limit, stop on a stopped loop fails, presets, export and import")
    func autoReply() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let config = h.tmp.subdirectory("cli")
        let server = ["--server", h.server.base, "--no-color"]
        let c = try await h.client.createConversation(CreateConversationRequest(cwd: "app"))

        // Every problem is listed and nothing is sent.
        let bad = try await Self.cli(["auto-reply", "set", c.id, "--max-messages", "0", "--min-confidence", "2"] + server, config: config)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("max_messages must be from 1 to 100, got 0"), "\(bad.stderr)")
        #expect(bad.stderr.contains("min_confidence must be from 0 to 1, got 2"), "\(bad.stderr)")
        #expect(try await h.client.autoReply(c.id).settings == AutoReplySettings())
        let badMode = try await Self.cli(["auto-reply", "set", c.id, "--mode", "forever"] + server, config: config)
        #expect(badMode.status == 1 && badMode.stderr.contains("unknown mode 'forever'"), "\(badMode.stderr)")

        let set = try await Self.cli(
            ["auto-reply", "set", c.id, "--mode", "message_based", "--max-messages", "2", "--no-stop-on-error", "--prompt", "#model\nsay Round {turn} finished."] + server,
            config: config
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("message_based") && set.stdout.contains("2 messages") && set.stdout.contains("Round {turn} finished."), "\(set.stdout)")
        let saved = try await h.client.autoReply(c.id).settings
        #expect(saved.mode == .messageBased && saved.maxMessages == 2 && !saved.stopOnError && saved.nextPrompt.text == "#model\nsay Round {turn} finished.")

        let start = try await Self.cli(["auto-reply", "start", c.id] + server, config: config)
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout.contains("auto-reply"), "\(start.stdout)")
        try await eventually(20, "the loop to stop at its limit") {
            let show = try await Self.cli(["auto-reply", "show", c.id] + server, config: config)
            return show.stdout.contains("stopped") && show.stdout.contains("message limit")
        }
        let json = try await Self.cli(["auto-reply", "show", c.id, "--json"] + server, config: config)
        let status = try WireJSON.decode(AutoReplyStatus.self, from: Data(json.stdout.utf8))
        #expect(status.progress.stopReason == .messageLimit && status.progress.messages == 2)

        let stop = try await Self.cli(["auto-reply", "stop", c.id] + server, config: config)
        #expect(stop.status == 1)
        #expect(stop.stderr.contains("auto-reply is already stopped"), "\(stop.stderr)")

        let presets = try await Self.cli(["auto-reply", "presets"] + server, config: config)
        #expect(presets.status == 0 && presets.stdout.contains("overnight") && presets.stdout.contains("hybrid"), "\(presets.stdout)")

        // Export, then import into another conversation.
        let export = try await Self.cli(["auto-reply", "export", c.id] + server, config: config)
        #expect(export.status == 0 && export.stdout.contains("\"max_messages\" : 2"), "\(export.stdout)")
        let file = h.tmp.path + "/loop.json"
        try export.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let other = try await h.client.createConversation(CreateConversationRequest(cwd: "app"))
        let imported = try await Self.cli(["auto-reply", "import", other.id, file] + server, config: config)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await h.client.autoReply(other.id).settings == saved)
        // A preset with a flag on top, started in one go.
        let overnight = try await Self.cli(["auto-reply", "set", other.id, "--preset", "overnight", "--max-minutes", "30"] + server, config: config)
        #expect(overnight.status == 0, "\(overnight.stderr)")
        let after = try await h.client.autoReply(other.id).settings
        #expect(after.mode == .hybrid && after.maxMinutes == 30 && after.maxIterations == 100 && after.nextPrompt == saved.nextPrompt)
    }
}
