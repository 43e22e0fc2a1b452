import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

#if canImport(Glibc)
import Glibc
#endif

/// fake-claude must agree with the real CLI (2.1.330) everywhere but the faults it exists for. The support types are
/// in FakeClaudeSupport.swift; the tests are split over this file (turns, faults, flags, sessions),
/// FakeClaudeTests+Lifecycle.swift and FakeClaudeTests+Permissions.swift.
@Suite("fake-claude, the claude CLI double, driven through AgentProcess", .serialized, .timeLimit(.minutes(1)))
struct FakeClaudeTests {
    typealias Input = FakeClaudeInput

    @Test("the default turn echoes the message: init, text deltas, the assistant text, a success result")
    func echoTurn() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.user("hello there world"))
        let outputs = await claude.turn()
        let initLine = try #require(outputs.first)
        #expect(initLine.is("system", "init"))
        let id = try #require(initLine["session_id"]?.stringValue)
        #expect(id == id.lowercased() && UUID(uuidString: id) != nil)
        #expect(initLine["model"] == "claude-sonnet-4-5-20250929")
        #expect(outputs.deltas == "Echo: hello there world")
        #expect(outputs.count { $0.is("stream_event") && $0["event"]?.objectValue?["delta"]?.objectValue?["type"] == "text_delta" } == 4)
        #expect(outputs.texts == ["Echo: hello there world"])
        let result = try #require(outputs.result)
        #expect(result["subtype"] == "success" && result["is_error"] == false)
        #expect(result["session_id"] == .string(id))
        #expect(result["total_cost_usd"]?.doubleValue == 0.001)
        #expect(result["result"] == "Echo: hello there world")
        #expect(result["stop_reason"] == "end_turn" && result["terminal_reason"] == "completed")
        #expect((result["usage"]?.objectValue?["input_tokens"]?.intValue ?? 0) > 0 && (result["usage"]?.objectValue?["output_tokens"]?.intValue ?? 0) > 0)
        #expect(result["num_turns"] == 1)

        claude.process.closeStdin()
        #expect(await claude.next() == nil)
        #expect(await claude.process.waitForExit() == .exited(0))
        let events = home.events()
        #expect(events.first?.objectValue?["event"] == "start")
        #expect(events.first?.objectValue?["argv"] == .array(FakeClaudeHome.streamFlags.map { .string($0) }))
        #expect(events.first?.objectValue?["cwd"] == .string(home.cwd))
        #expect(events.first?.objectValue?["session_id"] == .string(id))
        #expect(home.stdinLines() == [Input.user("hello there world")])
        #expect(events.last == ["event": "exit", "code": 0])
        // The session was stored under the cwd-derived project directory.
        let sessionFile = home.config + "/projects/" + home.cwd.replacingOccurrences(of: "/", with: "-") + "/" + id + ".jsonl"
        #expect(FileManager.default.fileExists(atPath: sessionFile))
    }

    @Test("an assistant line comes before its block's content_block_stop, as the real CLI prints them")
    func assistantBeforeBlockStop() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.user("hi"))
        let outputs = await claude.turn()
        let assistant = try #require(outputs.firstIndex { $0.is("assistant") })
        let stop = try #require(outputs.firstIndex { $0.is("stream_event") && $0["event"]?.objectValue?["type"] == "content_block_stop" })
        #expect(assistant < stop)
        await claude.process.terminate()
    }

    @Test("stamped streams one delta per line carrying CLOCK_MONOTONIC read when it was written (the bench's probe)")
    func stampedDeltas() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let before = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        claude.send(Input.script("stamped 7 5"))
        let outputs = await claude.turn()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let after = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let deltas = outputs.compactMap { line -> String? in
            line.is("stream_event") ? line["event"]?.objectValue?["delta"]?.objectValue?["text"]?.stringValue : nil
        }
        #expect(deltas.count == 5)
        var previous = before
        for (n, delta) in deltas.enumerated() {
            let parts = delta.trimmingCharacters(in: .whitespaces).split(separator: ":")
            #expect(parts.count == 4 && parts[0] == "bench" && parts[1] == "7" && parts[2] == Substring(String(n)))
            let stamp = try #require(Int64(parts[3]))
            #expect(stamp >= previous && stamp <= after)
            previous = stamp
        }
        #expect(outputs.texts == [deltas.joined()])
        #expect(outputs.result?["subtype"] == "success")
        claude.send(Input.script("stamped 1 0"))
        #expect(await claude.turn().result?["is_error"] == true)
    }

    @Test("messages sent during a turn wait for it, then make one turn together, their texts joined by newlines")
    func queuedMessages() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("sleep 0.3", "say first"))
        claude.send(Input.user("second"))
        claude.send(Input.user("third"))
        claude.process.closeStdin()
        #expect(await claude.turn().result?["result"] == "first")
        #expect(await claude.turn().result?["result"] == "Echo: second\nthird")
        #expect(await claude.next() == nil)
        #expect(await claude.process.waitForExit() == .exited(0))
    }

    @Test("fail, garbage lines and unknown types: the host sees errors and can skip the noise")
    func failAndGarbage() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("garbage", "title ignored", "fail Something broke"))
        let outputs = await claude.turn()
        #expect(outputs.contains { $0.object == nil && $0.text == "this line is not JSON {" })
        #expect(outputs.contains { $0.is("mystery_type") })
        let result = try #require(outputs.result)
        #expect(result["subtype"] == "error_during_execution" && result["is_error"] == true)
        #expect(result["errors"] == ["Something broke"] && result["result"] == "Something broke")
        await claude.process.terminate()
    }

    @Test("crash: exit code 3, no result, the message in the stderr tail")
    func crash() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        claude.send(Input.script("say about to crash", "crash"))
        let outputs = await claude.turn()
        #expect(outputs.result == nil)
        #expect(outputs.texts == ["about to crash"])
        #expect(await claude.process.waitForExit() == .exited(3))
        #expect(claude.process.stderrTail == "fatal: simulated crash\n")
        #expect(home.events().last == ["event": "exit", "code": 3])
    }

    @Test("flags are checked like the real CLI")
    func flagErrors() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        let noVerbose = try home.start(["-p", "--input-format", "stream-json", "--output-format", "stream-json"])
        #expect(await noVerbose.process.waitForExit() == .exited(1))
        #expect(noVerbose.process.stderrTail == "Error: When using --print, --output-format=stream-json requires --verbose\n")

        let unknown = try home.start(FakeClaudeHome.streamFlags + ["--frobnicate"])
        #expect(await unknown.process.waitForExit() == .exited(1))
        #expect(unknown.process.stderrTail == "error: unknown option '--frobnicate'\n")
        #expect(home.events().last == ["event": "exit", "code": 1])

        let replay = try home.start(["-p", "--output-format", "stream-json", "--verbose", "--replay-user-messages", "hi"])
        #expect(await replay.process.waitForExit() == .exited(1))
        #expect(replay.process.stderrTail == "Error: --replay-user-messages requires both --input-format=stream-json and --output-format=stream-json.\n")
    }

    @Test("--permission-mode takes the real CLI's choices and default; another value is refused with its message")
    func permissionModeFlag() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        for mode in ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan", "default"] {
            var claude = try home.start(FakeClaudeHome.streamFlags + ["--permission-mode", mode])
            claude.send(Input.user("which mode?"))
            #expect(await claude.turn().first?["permissionMode"] == .string(mode))
            claude.process.closeStdin()
            #expect(await claude.process.waitForExit() == .exited(0))
        }
        let refused = try home.start(FakeClaudeHome.streamFlags + ["--permission-mode", "delegate"])
        #expect(await refused.process.waitForExit() == .exited(1))
        #expect(
            refused.process.stderrTail
                == "error: option '--permission-mode <mode>' argument 'delegate' is invalid. Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan.\n"
        )
    }

    @Test("--version names the double's version and --help lists the permission modes as the real CLI does; both exit 0")
    func versionAndHelp() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var version = try home.start(["--version"])
        #expect(await version.next()?.text == "0.0.1-fake (Claude Code)")
        #expect(await version.process.waitForExit() == .exited(0))

        var help = try home.start(["-p", "--help"])
        var lines: [String] = []
        while let line = await help.next() { lines.append(line.text) }
        #expect(await help.process.waitForExit() == .exited(0))
        let start = try #require(lines.firstIndex { $0.hasPrefix("  --permission-mode <mode>") })
        #expect(
            Array(lines[start..<min(lines.count, start + 4)]) == [
                "  --permission-mode <mode>              Permission mode to use for the session",
                #"                                        (choices: "acceptEdits", "auto","#,
                #"                                        "bypassPermissions", "manual","#,
                #"                                        "dontAsk", "plan")"#,
            ]
        )
        #expect(lines.contains { $0.hasPrefix("  --replay-user-messages") })
    }

    @Test("--resume of an unknown id: one error result on stdout before anything else, the message on stderr, exit 1")
    func resumeUnknownSession() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        let id = "0b7e2f1c-0000-4000-8000-000000000000"
        var unknown = try home.start(FakeClaudeHome.streamFlags + ["--resume", id])
        let lines = await unknown.collect { _ in false }
        #expect(await unknown.process.waitForExit() == .exited(1))
        #expect(unknown.process.stderrTail == "No conversation found with session ID: \(id)\n")
        #expect(lines.count == 1)
        let result = try #require(lines.first?.object)
        #expect(result["type"] == "result" && result["subtype"] == "error_during_execution" && result["is_error"] == true)
        #expect(result["session_id"] == .string(id) && result["num_turns"] == 0 && result["total_cost_usd"]?.doubleValue == 0)
        #expect(result["errors"] == [.string("No conversation found with session ID: \(id)")] && result["result_index"] == 0)
        #expect(result["usage"]?.objectValue?["output_tokens"] == 0 && result["modelUsage"] == [:] && result["permission_denials"] == [])

        var invalid = try home.start(FakeClaudeHome.streamFlags + ["--resume", "not-a-uuid"])
        let refused = try #require(await invalid.next()?.object)
        #expect(await invalid.process.waitForExit() == .exited(1))
        let message =
            #"Error: --resume requires a valid session ID or session title when used with --print. Usage: claude -p --resume <session-id|title>. Provided value "not-a-uuid" is not a UUID and does not match any session title."#
        #expect(refused["errors"] == [.string(message)])
        #expect(refused["session_id"]?.stringValue.flatMap(UUID.init(uuidString:)) != nil)
        #expect(invalid.process.stderrTail == message + "\n")
    }

    @Test("--resume of a known id keeps its session id, takes the model flag, and starts the cost and result count at 0")
    func resumeKnownSession() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var first = try home.start()
        first.send(Input.script("say remember this", "cost 0.5"))
        let id = try #require(await first.turn().result?["session_id"]?.stringValue)
        first.process.closeStdin()
        #expect(await first.process.waitForExit() == .exited(0))

        var resumed = try home.start(FakeClaudeHome.streamFlags + ["-r", id, "--model", "claude-opus-4-1"])
        resumed.send(Input.user("and now?"))
        let outputs = await resumed.turn()
        #expect(outputs.first?["session_id"] == .string(id) && outputs.first?["model"] == "claude-opus-4-1")
        let result = try #require(outputs.result)
        #expect(result["session_id"] == .string(id))
        #expect(result["total_cost_usd"]?.doubleValue == 0.001 && result["result_index"] == 0)
        await resumed.process.terminate()

        // Sessions are keyed by cwd: the same id from another directory is unknown.
        let elsewhere = home.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let moved = try AgentProcess.start(
            executable: FakeClaudeHome.executable, arguments: FakeClaudeHome.streamFlags + ["--resume", id], workingDirectory: elsewhere,
            environment: ["PATH": "/usr/bin:/bin", "CLAUDE_CONFIG_DIR": home.config]
        )
        #expect(await moved.waitForExit() == .exited(1))
    }
}
