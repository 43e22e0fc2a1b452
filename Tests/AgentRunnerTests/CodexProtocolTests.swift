import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// ``CodexProtocol`` driven with lines in the shapes codex-cli 0.147.0 printed (recorded by running it), no process.
@Suite("Codex app-server protocol")
struct CodexProtocolTests {
    static let thread = "01a21c5a-1459-7a73-b75e-06f725462556"
    static let turnID = "01a21c5a-17f2-7cb0-884e-6b3104729b29"

    static func settings(resume: String? = nil) -> CodexProtocol.Settings {
        CodexProtocol.Settings(cwd: "/w", model: nil, approvalPolicy: "untrusted", sandbox: "danger-full-access", resumeThreadID: resume, clientVersion: "1.0")
    }

    /// The lines of a step as JSON objects.
    static func sent(_ step: CodexProtocol.Step) -> [JSONObject] {
        step.lines.compactMap { (try? JSONParser.parse($0))?.objectValue }
    }

    /// A protocol past the handshake, with its thread open.
    static func ready() -> CodexProtocol {
        var p = CodexProtocol(settings: settings())
        _ = p.start()
        _ = p.receive(line(#"{"id":0,"result":{"userAgent":"ralph_mobile/0.147.0","codexHome":"/h","platformFamily":"unix","platformOs":"linux"}}"#))
        _ = p.receive(line(#"{"id":1,"result":{"thread":{"id":"\#(thread)","cliVersion":"0.147.0","status":{"type":"idle"}},"model":"gpt-5.5","approvalPolicy":"untrusted"}}"#))
        return p
    }

    /// `ready()` with a message sent and begun.
    static func running() -> CodexProtocol {
        var p = ready()
        _ = p.command(.user(text: "hi", id: "t1"))
        _ = p.receive(line(#"{"id":2,"result":{"turn":{"id":"\#(turnID)","items":[],"status":"inProgress"}}}"#))
        _ = p.receive(line(#"{"method":"turn/started","params":{"threadId":"\#(thread)","turn":{"id":"\#(turnID)","status":"inProgress"}},"emittedAtMs":1}"#))
        return p
    }

    static func line(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("the handshake: initialize, then initialized and thread/start with the cwd, policy and sandbox; a message sent meanwhile waits for the thread")
    func handshake() throws {
        var p = CodexProtocol(settings: Self.settings())
        let initialize = try #require(Self.sent(p.start()).first)
        #expect(initialize["method"] == "initialize" && initialize["id"] == 0)
        #expect(initialize["params"]?.objectValue?["clientInfo"]?.objectValue?["name"] == "ralph_mobile")
        #expect(p.command(.user(text: "early", id: "t0")).lines.isEmpty, "no thread yet")
        let opened = Self.sent(p.receive(Self.line(#"{"id":0,"result":{"userAgent":"x"}}"#)))
        #expect(opened.map { $0["method"]?.stringValue } == ["initialized", "thread/start"])
        let params = try #require(opened.last?["params"]?.objectValue)
        #expect(params["cwd"] == "/w" && params["approvalPolicy"] == "untrusted" && params["sandbox"] == "danger-full-access" && params["threadId"] == nil)

        let step = p.receive(Self.line(#"{"id":1,"result":{"thread":{"id":"\#(Self.thread)","cliVersion":"0.147.0"},"model":"gpt-5.5","approvalPolicy":"untrusted"}}"#))
        guard case .system(let system) = step.events.first else { Issue.record("no init: \(step.events)"); return }
        #expect(system.sessionID == Self.thread && system.version == "0.147.0" && system.permissionMode == "untrusted" && system.capabilities == ["msg_lifecycle_v1"])
        let turn = try #require(Self.sent(step).first)
        #expect(turn["method"] == "turn/start" && turn["params"]?.objectValue?["threadId"]?.stringValue == Self.thread)
    }

    @Test("resuming sends thread/resume with the policy and sandbox; a thread Codex does not have is a lost session, and Codex is let go")
    func resume() throws {
        var p = CodexProtocol(settings: Self.settings(resume: Self.thread))
        _ = p.start()
        let resume = try #require(Self.sent(p.receive(Self.line(#"{"id":0,"result":{}}"#))).last)
        #expect(resume["method"] == "thread/resume" && resume["params"]?.objectValue?["threadId"]?.stringValue == Self.thread)
        #expect(resume["params"]?.objectValue?["approvalPolicy"] == "untrusted" && resume["params"]?.objectValue?["sandbox"] == "danger-full-access")
        let lost = p.receive(Self.line(#"{"error":{"code":-32600,"message":"no rollout found for thread id \#(Self.thread)"},"id":1}"#))
        #expect(lost.closeInput)
        guard case .sessionLost(let reason) = lost.events.first else { Issue.record("\(lost.events)"); return }
        #expect(reason.contains("no rollout found"))
    }

    @Test("a turn: started, streamed, its text whole, its tokens summed over model requests (cached apart), completed for our message")
    func turn() throws {
        var p = Self.ready()
        _ = p.command(.user(text: "hi", id: "t1"))
        #expect(p.receive(Self.line(#"{"id":2,"result":{"turn":{"id":"\#(Self.turnID)"}}}"#)).events.isEmpty)
        #expect(p.receive(Self.line(#"{"method":"turn/started","params":{"turn":{"id":"\#(Self.turnID)"}}}"#)).events == [.lifecycle(commandUUID: "t1", state: "started")])
        _ = p.receive(Self.line(#"{"method":"item/started","params":{"item":{"type":"agentMessage","id":"msg_1","text":""},"turnId":"\#(Self.turnID)"}}"#))
        #expect(p.receive(Self.line(#"{"method":"item/agentMessage/delta","params":{"itemId":"msg_1","delta":"Hello "}}"#)).events == [.textDelta(text: "Hello ", parentToolUseID: nil)])
        #expect(
            p.receive(Self.line(#"{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"msg_1","text":"Hello there"}}}"#)).events == [
                .assistantText(messageID: "msg_1", text: "Hello there", parentToolUseID: nil)
            ])
        for _ in 0..<2 {
            _ = p.receive(
                Self.line(
                    #"{"method":"thread/tokenUsage/updated","params":{"turnId":"\#(Self.turnID)","tokenUsage":{"last":{"inputTokens":100,"cachedInputTokens":40,"outputTokens":20}}}}"#
                ))
        }
        let done = p.receive(Self.line(#"{"method":"turn/completed","params":{"turn":{"id":"\#(Self.turnID)","status":"completed","error":null,"durationMs":66}}}"#))
        guard case .result(let result) = done.events.first else { Issue.record("\(done.events)"); return }
        #expect(!result.isError && result.userMessageUUIDs == ["t1"] && result.sessionID == Self.thread && result.durationMs == 66)
        #expect(result.usage == TokenUsage(inputTokens: 120, outputTokens: 40, cacheReadInputTokens: 80))
    }

    @Test("a failed turn carries Codex's message; a refused turn/start fails the message")
    func failures() throws {
        var p = Self.running()
        let failed = p.receive(
            Self.line(#"{"method":"turn/completed","params":{"turn":{"id":"\#(Self.turnID)","status":"failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}}}"#))
        guard case .result(let result) = failed.events.first else { Issue.record("\(failed.events)"); return }
        #expect(result.isError && result.errorText.contains("429"))

        _ = p.command(.user(text: "again", id: "t2"))
        let refused = p.receive(Self.line(#"{"error":{"code":-32600,"message":"thread not found"},"id":3}"#))
        guard case .result(let refusal) = refused.events.first else { Issue.record("\(refused.events)"); return }
        #expect(refusal.isError && refusal.userMessageUUIDs == ["t2"] && refusal.errorText.contains("thread not found"))
    }

    @Test("a command: announced as shell with the command as the model wrote it, approved with accept, its output and exit code as the result")
    func commandApproval() throws {
        var p = Self.running()
        let started = p.receive(
            Self.line(
                #"{"method":"item/started","params":{"item":{"type":"commandExecution","id":"call_accept","command":"/bin/bash -lc 'touch approved.txt && echo it'\\''s && exit 3'","cwd":"/w","status":"inProgress"}}}"#
            ))
        let input: JSONValue = ["command": "touch approved.txt && echo it's && exit 3", "cwd": "/w"]
        #expect(started.events == [.toolUse(messageID: nil, toolUseID: "call_accept", name: "shell", input: input, parentToolUseID: nil)])
        let asked = p.receive(
            Self.line(
                #"{"method":"item/commandExecution/requestApproval","id":0,"params":{"itemId":"call_accept","turnId":"\#(Self.turnID)","command":"/bin/bash -lc 'x'","cwd":"/w"}}"#
            ))
        guard case .permissionRequest(let request) = asked.events.first else { Issue.record("\(asked.events)"); return }
        #expect(request.requestID == "codex-0" && request.toolName == "shell" && request.input == input && request.toolUseID == "call_accept")
        #expect(p.command(.allow(requestID: "codex-0", input: input)).lines == [Array(#"{"id":0,"result":{"decision":"accept"}}"#.utf8) + [0x0A]])
        #expect(p.command(.allow(requestID: "codex-0", input: input)).lines.isEmpty, "answered once")
        let ended = p.receive(
            Self.line(#"{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_accept","status":"failed","aggregatedOutput":"it's\n","exitCode":3}}}"#))
        #expect(ended.events == [.toolResults([AgentToolResult(toolUseID: "call_accept", output: "it's\n(exit code 3)", isError: true)], parentToolUseID: nil)])
    }

    @Test("deny: with a person's words, a steer of the turn then decline; without, decline alone; to interrupt, cancel")
    func denials() throws {
        var p = Self.running()
        func ask(_ id: Int) {
            _ = p.receive(Self.line(#"{"method":"item/fileChange/requestApproval","id":\#(id),"params":{"itemId":"call_\#(id)","turnId":"\#(Self.turnID)"}}"#))
        }
        ask(1)
        let worded = Self.sent(p.command(.deny(requestID: "codex-1", message: "Not that file; edit b.txt", interrupt: false)))
        #expect(worded.map { $0["method"]?.stringValue } == ["turn/steer", nil])
        let steer = try #require(worded.first?["params"]?.objectValue)
        #expect(steer["expectedTurnId"]?.stringValue == Self.turnID && JSONWriter.string(steer["input"] ?? nil).contains("Not that file; edit b.txt"))
        #expect(worded.last?["result"]?.objectValue?["decision"] == "decline" && worded.last?["id"] == 1)
        ask(2)
        #expect(Self.sent(p.command(.deny(requestID: "codex-2", message: AgentCommand.defaultDenial, interrupt: false))).map { $0["result"]?.objectValue?["decision"] } == ["decline"])
        ask(3)
        #expect(Self.sent(p.command(.deny(requestID: "codex-3", message: "stop", interrupt: true))).map { $0["result"]?.objectValue?["decision"] } == ["cancel"])
    }

    @Test("a patch: announced as apply_patch with its paths and changes, which its approval request (naming only the item) shows")
    func patchApproval() throws {
        var p = Self.running()
        let started = p.receive(
            Self.line(
                #"{"method":"item/started","params":{"item":{"type":"fileChange","id":"call_p","status":"inProgress","changes":[{"path":"/w/a.txt","kind":{"type":"update","move_path":null},"diff":"@@ -1 +1 @@\n-a\n+b\n"},{"path":"/w/new.txt","kind":{"type":"add"},"diff":"hello\n"}]}}}"#
            ))
        guard case .toolUse(_, "call_p", "apply_patch", let input, nil) = started.events.first else { Issue.record("\(started.events)"); return }
        #expect(input.objectValue?["paths"] == ["/w/a.txt", "/w/new.txt"])
        #expect(input.objectValue?["changes"]?.arrayValue?.last?.objectValue?["kind"] == "add")
        let asked = p.receive(Self.line(#"{"method":"item/fileChange/requestApproval","id":4,"params":{"itemId":"call_p","reason":null,"grantRoot":null}}"#))
        guard case .permissionRequest(let request) = asked.events.first else { Issue.record("\(asked.events)"); return }
        #expect(request.toolName == "apply_patch" && request.input == input)
        let declined = p.receive(Self.line(#"{"method":"item/completed","params":{"item":{"type":"fileChange","id":"call_p","status":"declined","changes":[]}}}"#))
        guard case .toolResults(let results, nil) = declined.events.first else { Issue.record("\(declined.events)"); return }
        #expect(results.first?.isError == true && results.first?.output.hasPrefix("declined") == true)
    }

    @Test("interrupt: turn/interrupt of the running turn, answered as a control response; one asked before Codex named the turn waits for it")
    func interrupts() throws {
        var p = Self.running()
        let sent = Self.sent(p.command(.interrupt(requestID: "rm-1")))
        #expect(sent.first?["method"] == "turn/interrupt" && sent.first?["params"]?.objectValue?["turnId"]?.stringValue == Self.turnID)
        let id = try #require(sent.first?["id"]?.intValue)
        #expect(p.receive(Self.line(#"{"id":\#(id),"result":{}}"#)).events == [.controlResponse(requestID: "rm-1", success: true, error: nil)])

        var early = Self.ready()
        _ = early.command(.user(text: "hi", id: "t1"))
        #expect(early.command(.interrupt(requestID: "rm-2")).lines.isEmpty, "Codex has not named the turn yet")
        let started = early.receive(Self.line(#"{"method":"turn/started","params":{"turn":{"id":"\#(Self.turnID)"}}}"#))
        #expect(started.events.first == .lifecycle(commandUUID: "t1", state: "started"))
        #expect(Self.sent(started).first?["method"] == "turn/interrupt")

        var waiting = CodexProtocol(settings: Self.settings())
        _ = waiting.start()
        _ = waiting.command(.user(text: "hi", id: "t9"))
        #expect(waiting.command(.interrupt(requestID: "rm-3")).events == [.lifecycle(commandUUID: "t9", state: "cancelled")], "dropped before Codex saw it")
    }

    @Test("a retried model request streams the message again from its start: what was shown is not shown twice")
    func retryReplay() throws {
        var p = Self.running()
        _ = p.receive(Self.line(#"{"method":"item/started","params":{"item":{"type":"agentMessage","id":"msg_1"}}}"#))
        _ = p.receive(Self.line(#"{"method":"item/agentMessage/delta","params":{"itemId":"msg_1","delta":"Hello wo"}}"#))
        let retry = p.receive(
            Self.line(#"{"method":"error","params":{"willRetry":true,"error":{"message":"Reconnecting... 2/5","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":500}}}}}"#))
        guard case .apiRetry(let attempt, let max, _, let status, _) = retry.events.first else { Issue.record("\(retry.events)"); return }
        #expect(attempt == 2 && max == 5 && status == 500)
        _ = p.receive(Self.line(#"{"method":"item/started","params":{"item":{"type":"agentMessage","id":"msg_1"}}}"#))
        #expect(p.receive(Self.line(#"{"method":"item/agentMessage/delta","params":{"itemId":"msg_1","delta":"Hello"}}"#)).events.isEmpty)
        #expect(p.receive(Self.line(#"{"method":"item/agentMessage/delta","params":{"itemId":"msg_1","delta":" world!"}}"#)).events == [.textDelta(text: "rld!", parentToolUseID: nil)])
    }

    @Test("a request this client does not serve is answered with an error at once; noise and junk change nothing")
    func unknownRequests() throws {
        var p = Self.running()
        let step = p.receive(Self.line(#"{"method":"item/tool/requestUserInput","id":7,"params":{"itemId":"x"}}"#))
        #expect(Self.sent(step).first?["id"] == 7 && Self.sent(step).first?["error"]?.objectValue?["code"] == -32601)
        #expect(p.receive(Self.line("not json")).events == [.notJSON("not json")])
        #expect(p.receive(Self.line(#"{"method":"account/rateLimits/updated","params":{}}"#)).lines.isEmpty)
    }

    @Test("the command inside Codex's bash -lc quoting, and anything else as it is")
    func unwrapping() {
        #expect(CodexProtocol.unwrapShell("/bin/bash -lc 'ls -la'") == "ls -la")
        #expect(CodexProtocol.unwrapShell(#"/bin/bash -lc 'echo '\''hi'\'''"#) == "echo 'hi'")
        #expect(CodexProtocol.unwrapShell("/bin/bash -lc 'a' b") == "/bin/bash -lc 'a' b")
        #expect(CodexProtocol.unwrapShell("ls") == "ls")
        #expect(CodexProtocol.unwrapShell("/bin/bash -lc ''") == "/bin/bash -lc ''")
    }
}
