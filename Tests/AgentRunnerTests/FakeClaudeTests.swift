import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

#if canImport(Glibc)
import Glibc
#endif

/// A temporary home for one fake-claude conversation: working directory, config directory (sessions) and event log.
struct FakeClaudeHome {
    /// The built `fake-claude`, next to the test bundle.
    static var executable: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("fake-claude").path
    }

    /// The flags the server uses.
    static let streamFlags = [
        "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
        "--permission-prompt-tool", "stdio",
    ]

    let root: String
    var cwd: String { root + "/work" }
    var config: String { root + "/config" }
    var logFile: String { root + "/log.jsonl" }

    init() throws {
        root = FileManager.default.temporaryDirectory.path + "/fake-claude-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    func start(_ arguments: [String] = streamFlags) throws -> FakeClaudeDriver {
        let process = try AgentProcess.start(
            executable: Self.executable, arguments: arguments, workingDirectory: cwd,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": root, "CLAUDE_CONFIG_DIR": config, "FAKE_CLAUDE_LOG": logFile, "FAKE_CLAUDE_DELAY_MS": "1",
            ]
        )
        return FakeClaudeDriver(process: process)
    }

    /// The `FAKE_CLAUDE_LOG` events so far.
    func events() -> [JSONValue] {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
    }

    /// The parsed `line`s of the `stdin` events.
    func stdinLines() -> [JSONValue] {
        events().compactMap { event in event.objectValue?["event"] == "stdin" ? event.objectValue?["line"] : nil }
    }
}

/// Reads a running fake-claude's stdout through the decoder.
struct FakeClaudeDriver {
    let process: AgentProcess
    private var iterator: AsyncStream<[UInt8]>.Iterator

    init(process: AgentProcess) {
        self.process = process
        iterator = process.lines.makeAsyncIterator()
    }

    func send(_ line: [UInt8]) { process.send(line) }

    /// The outputs of the next line; nil at end of output.
    mutating func next() async -> [ClaudeOutput]? {
        guard let line = await iterator.next() else { return nil }
        return ClaudeStreamDecoder.decode(line: line)
    }

    /// Outputs up to and including the first one matching `stop` (or up to end of output).
    mutating func collect(until stop: (ClaudeOutput) -> Bool) async -> [ClaudeOutput] {
        var outputs: [ClaudeOutput] = []
        while let next = await next() {
            for output in next {
                outputs.append(output)
                if stop(output) { return outputs }
            }
        }
        return outputs
    }

    /// Outputs up to and including the turn's result.
    mutating func turn() async -> [ClaudeOutput] {
        await collect { if case .result = $0 { true } else { false } }
    }

    /// Outputs up to and including the next permission request, which is returned too.
    mutating func untilPermission() async -> ([ClaudeOutput], ClaudePermissionRequest?) {
        let outputs = await collect { if case .permissionRequest = $0 { true } else { false } }
        guard case .permissionRequest(let request)? = outputs.last else { return (outputs, nil) }
        return (outputs, request)
    }

    /// The session id of the `system` `init` line, which must come first.
    mutating func initLine() async -> (sessionID: String?, model: String?) {
        guard case .system(let system)? = await next()?.first, system.subtype == "init" else { return (nil, nil) }
        return (system.sessionID, system.model)
    }
}

extension [ClaudeOutput] {
    var result: ClaudeResult? {
        for output in reversed() { if case .result(let result) = output { return result } }
        return nil
    }

    var deltas: String {
        compactMap { if case .textDelta(let text, _) = $0 { text } else { nil } }.joined()
    }

    var texts: [String] {
        compactMap { if case .assistantText(_, let text, _) = $0 { text } else { nil } }
    }

    var toolResults: [ClaudeToolResult] {
        flatMap { output -> [ClaudeToolResult] in if case .toolResults(let results, _) = output { results } else { [] } }
    }

    var toolUses: [(id: String, name: String, input: JSONValue)] {
        compactMap { if case .toolUse(_, let id, let name, let input, _) = $0 { (id, name, input) } else { nil } }
    }

    var permissionRequests: Int {
        count { if case .permissionRequest = $0 { true } else { false } }
    }
}

@Suite("fake-claude, the claude CLI double, driven through AgentProcess", .serialized, .timeLimit(.minutes(1)))
struct FakeClaudeTests {
    static func script(_ lines: String...) -> [UInt8] {
        ClaudeInput.user(text: (["#script"] + lines).joined(separator: "\n"))
    }

    @Test("the default turn echoes the message: init, text deltas, the assistant text, a success result")
    func echoTurn() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        let (sessionID, model) = await claude.initLine()
        let id = try #require(sessionID)
        #expect(id == id.lowercased() && UUID(uuidString: id) != nil)
        #expect(model == "claude-sonnet-4-5-20250929")

        claude.send(ClaudeInput.user(text: "hello there world"))
        let outputs = await claude.turn()
        #expect(outputs.deltas == "Echo: hello there world")
        #expect(outputs.count { if case .textDelta = $0 { true } else { false } } == 4)
        #expect(outputs.texts == ["Echo: hello there world"])
        let result = try #require(outputs.result)
        #expect(result.subtype == "success" && !result.isError)
        #expect(result.sessionID == id)
        #expect(result.totalCostUSD == 0.001)
        #expect(result.resultText == "Echo: hello there world")
        #expect(result.stopReason == "end_turn")
        #expect(result.usage.inputTokens > 0 && result.usage.outputTokens > 0)
        #expect(result.numTurns == 1)

        claude.process.closeStdin()
        #expect(await claude.next() == nil)
        #expect(await claude.process.waitForExit() == .exited(0))
        let events = home.events()
        #expect(events.first?.objectValue?["event"] == "start")
        #expect(events.first?.objectValue?["argv"] == .array(FakeClaudeHome.streamFlags.map { .string($0) }))
        #expect(events.first?.objectValue?["cwd"] == .string(home.cwd))
        #expect(events.first?.objectValue?["session_id"] == .string(id))
        #expect(home.stdinLines() == [try JSONParser.parse(ClaudeInput.user(text: "hello there world"))])
        #expect(events.last == ["event": "exit", "code": 0])
        // The session was stored under the cwd-derived project directory.
        let sessionFile = home.config + "/projects/" + home.cwd.replacingOccurrences(of: "/", with: "-") + "/" + id + ".jsonl"
        #expect(FileManager.default.fileExists(atPath: sessionFile))
    }

    @Test("stamped streams one delta per line carrying CLOCK_MONOTONIC read when it was written (the bench's probe)")
    func stampedDeltas() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let before = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        claude.send(Self.script("stamped 7 5"))
        let outputs = await claude.turn()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let after = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let deltas = outputs.compactMap { output -> String? in if case .textDelta(let text, _) = output { text } else { nil } }
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
        #expect(outputs.result?.subtype == "success")
        claude.send(Self.script("stamped 1 0"))
        #expect(await claude.turn().result?.isError == true)
    }

    @Test("a tool turn answered allow: the original input is sent back and the tool runs")
    func allowTool() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script("say Let me look.", #"tool Bash {"command":"ls -la","description":"List files"}"#, "say All done.", "cost 0.25"))
        let (before, request) = await claude.untilPermission()
        let permission = try #require(request)
        #expect(before.texts == ["Let me look."])
        let toolUse = try #require(before.toolUses.first)
        #expect(toolUse.name == "Bash" && toolUse.input == ["command": "ls -la", "description": "List files"])
        #expect(permission.requestID == "req_1")
        #expect(permission.toolName == "Bash" && permission.toolUseID == toolUse.id)
        #expect(permission.input == toolUse.input)

        claude.send(ClaudeInput.allow(requestID: permission.requestID, input: permission.input))
        let after = await claude.turn()
        #expect(after.toolResults == [ClaudeToolResult(toolUseID: toolUse.id, output: #"ran Bash: {"command":"ls -la","description":"List files"}"#, isError: false)])
        #expect(after.texts == ["All done."])
        let result = try #require(after.result)
        #expect(result.subtype == "success" && result.deniedTools.isEmpty && result.totalCostUSD == 0.25 && result.numTurns == 2)
        #expect(
            home.stdinLines().last
                == (try JSONParser.parse(
                    #"{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"behavior":"allow","updatedInput":{"command":"ls -la","description":"List files"}}}}"#
                ))
        )
        await claude.process.terminate()
    }

    @Test("an allow with changed input runs with it; an empty input is visible as a change")
    func updatedInput() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script(#"tool Write {"file_path":"a.txt"}"#, #"tool Edit {"file_path":"c.txt"}"#))
        let permission = try #require(await claude.untilPermission().1)
        claude.send(ClaudeInput.allow(requestID: permission.requestID, input: ["file_path": "b.txt"]))
        let (outputs, second) = await claude.untilPermission()
        #expect(outputs.toolResults.map(\.output) == [#"ran Write: {"file_path":"a.txt"} (updated input: {"file_path":"b.txt"})"#])
        let edit = try #require(second)
        // The bug the original input avoids (claude-agent-sdk-python#320): `{}` reaches the tool as empty arguments.
        claude.send(ClaudeInput.allow(requestID: edit.requestID, input: [:]))
        #expect(await claude.turn().toolResults.map(\.output) == [#"ran Edit: {"file_path":"c.txt"} (updated input: {})"#])
        await claude.process.terminate()
    }

    @Test("a tool turn answered deny: an error tool result and a denial; deny with interrupt ends the turn")
    func denyTool() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script(#"tool Write {"file_path":"NOTES.md","content":"x"}"#, "say I was not allowed."))
        let permission = try #require(await claude.untilPermission().1)
        claude.send(ClaudeInput.deny(requestID: permission.requestID, message: "User denied on phone"))
        let outputs = await claude.turn()
        #expect(outputs.toolResults.map(\.output) == ["User denied on phone"])
        #expect(outputs.toolResults.map(\.isError) == [true])
        #expect(outputs.texts == ["I was not allowed."])
        let result = try #require(outputs.result)
        #expect(result.subtype == "success" && result.deniedTools == ["Write"])
        #expect(
            home.stdinLines().last
                == (try JSONParser.parse(
                    #"{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"behavior":"deny","message":"User denied on phone"}}}"#
                ))
        )

        claude.send(Self.script(#"tool Bash {"command":"rm -rf build"}"#, "say never said"))
        let second = try #require(await claude.untilPermission().1)
        #expect(second.requestID == "req_2")
        claude.send(ClaudeInput.deny(requestID: second.requestID, message: "Stop", interrupt: true))
        let stopped = await claude.turn()
        #expect(stopped.texts.isEmpty)
        let interrupted = try #require(stopped.result)
        #expect(interrupted.subtype == "error_during_execution" && interrupted.isError)
        #expect(interrupted.errors == ["Request interrupted by user"])
        #expect(interrupted.deniedTools == ["Bash"])
        await claude.process.terminate()
    }

    @Test("allow for this session: later calls of the tool are not asked again, other tools still are")
    func allowForSession() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script(#"tool Bash {"command":"swift build"}"#, #"tool Bash {"command":"swift test"}"#))
        let permission = try #require(await claude.untilPermission().1)
        let updates: JSONValue = [["type": "addRules", "rules": [["toolName": "Bash"]], "behavior": "allow", "destination": "session"]]
        claude.send(ClaudeInput.allow(requestID: permission.requestID, input: permission.input, updatedPermissions: updates))
        let first = await claude.turn()
        #expect(first.permissionRequests == 0)
        #expect(first.toolResults.map(\.output) == [#"ran Bash: {"command":"swift build"}"#, #"ran Bash: {"command":"swift test"}"#])

        claude.send(Self.script(#"tool Bash {"command":"ls"}"#, #"tool Read {"file_path":"x"}"#))
        let (outputs, request) = await claude.untilPermission()
        #expect(outputs.toolResults.map(\.output) == [#"ran Bash: {"command":"ls"}"#])
        #expect(request?.toolName == "Read")
        await claude.process.terminate()
    }

    @Test("an interrupt during sleep ends the turn at once; the next turn works")
    func interruptSleep() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script("say Thinking hard.", "sleep 30", "say never said"))
        _ = await claude.collect { if case .assistantText = $0 { true } else { false } }
        let started = ContinuousClock.now
        claude.send(ClaudeInput.interrupt(requestID: "c-42"))
        let outputs = await claude.turn()
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(outputs.contains(.controlResponse(requestID: "c-42", success: true, error: nil)))
        #expect(outputs.texts.isEmpty)
        let result = try #require(outputs.result)
        #expect(result.subtype == "error_during_execution" && result.isError && result.errors == ["Request interrupted by user"] && result.stopReason == nil)

        claude.send(ClaudeInput.user(text: "again"))
        #expect(await claude.turn().result?.resultText == "Echo: again")
        await claude.process.terminate()
    }

    @Test("an interrupt while an approval is pending abandons it")
    func interruptApproval() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script(#"tool Bash {"command":"make"}"#))
        let permission = try #require(await claude.untilPermission().1)
        claude.send(ClaudeInput.interrupt(requestID: "c-1"))
        let outputs = await claude.turn()
        #expect(outputs.contains(.controlResponse(requestID: "c-1", success: true, error: nil)))
        #expect(outputs.result?.errors == ["Request interrupted by user"])
        // A late answer to the abandoned request changes nothing.
        claude.send(ClaudeInput.allow(requestID: permission.requestID, input: permission.input))
        claude.send(ClaudeInput.user(text: "next"))
        let next = await claude.turn()
        #expect(next.toolResults.isEmpty && next.result?.resultText == "Echo: next")
        await claude.process.terminate()
    }

    @Test("messages sent during a turn are queued and run after it, in order")
    func queuedMessages() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script("sleep 0.3", "say first"))
        claude.send(ClaudeInput.user(text: "second"))
        claude.send(ClaudeInput.user(text: "third"))
        claude.process.closeStdin()
        #expect(await claude.turn().result?.resultText == "first")
        #expect(await claude.turn().result?.resultText == "Echo: second")
        #expect(await claude.turn().result?.resultText == "Echo: third")
        #expect(await claude.next() == nil)
        #expect(await claude.process.waitForExit() == .exited(0))
    }

    @Test("fail, garbage lines and unknown types: the host sees errors and can skip the noise")
    func failAndGarbage() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script("garbage", "title ignored", "fail Something broke"))
        let outputs = await claude.turn()
        #expect(outputs.contains { if case .notJSON = $0 { true } else { false } })
        #expect(outputs.contains { if case .other("mystery_type", _) = $0 { true } else { false } })
        let result = try #require(outputs.result)
        #expect(result.subtype == "error_during_execution" && result.isError && result.errors == ["Something broke"] && result.resultText == "Something broke")
        await claude.process.terminate()
    }

    @Test("crash: exit code 3, no result, the message in the stderr tail")
    func crash() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start()
        _ = await claude.initLine()
        claude.send(Self.script("say about to crash", "crash"))
        let outputs = await claude.turn()
        #expect(outputs.result == nil)
        #expect(outputs.texts == ["about to crash"])
        #expect(await claude.process.waitForExit() == .exited(3))
        #expect(claude.process.stderrTail == "fatal: simulated crash\n")
        #expect(home.events().last == ["event": "exit", "code": 3])
    }

    @Test("--resume: an unknown id exits 1 with the CLI's message; a known one keeps its session id")
    func resume() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        let unknown = try home.start(FakeClaudeHome.streamFlags + ["--resume", "0b7e2f1c-0000-4000-8000-000000000000"])
        #expect(await unknown.process.waitForExit() == .exited(1))
        #expect(unknown.process.stderrTail == "No conversation found with session ID: 0b7e2f1c-0000-4000-8000-000000000000\n")
        var silent = unknown
        #expect(await silent.next() == nil)

        var first = try home.start()
        let id = try #require(await first.initLine().sessionID)
        first.send(ClaudeInput.user(text: "remember this"))
        _ = await first.turn()
        first.process.closeStdin()
        #expect(await first.process.waitForExit() == .exited(0))

        var resumed = try home.start(FakeClaudeHome.streamFlags + ["-r", id, "--model", "claude-opus-4-1"])
        let (sessionID, model) = await resumed.initLine()
        #expect(sessionID == id)
        #expect(model == "claude-opus-4-1")
        resumed.send(ClaudeInput.user(text: "and now?"))
        #expect(await resumed.turn().result?.sessionID == id)
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
    }

    @Test("without a prompt tool, a tool that needs approval is denied automatically; allowed tools run")
    func printModeDenial() async throws {
        let home = try FakeClaudeHome()
        defer { home.remove() }
        var claude = try home.start(
            ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Read", "Bash(git log:*)"]
        )
        _ = await claude.initLine()
        claude.send(Self.script(#"tool Write {"file_path":"x"}"#, #"tool Read {"file_path":"x"}"#, #"tool Bash {"command":"git log"}"#))
        let outputs = await claude.turn()
        #expect(outputs.permissionRequests == 0)
        #expect(outputs.deltas.isEmpty, "no stream events without --include-partial-messages")
        #expect(outputs.toolResults.map(\.isError) == [true, false, false])
        #expect(outputs.result?.deniedTools == ["Write"])
        await claude.process.terminate()
    }
}
