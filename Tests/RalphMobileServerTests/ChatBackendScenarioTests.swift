import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// One scenario, run on each backend through the real server: the real Claude Code CLI against fake-anthropic, and
/// the real Codex CLI (`codex app-server`) against fake-openai, answering the same `#model` scripts. What a person
/// sees must not depend on which agent runs.
@Suite("The same conversation on Claude Code and on Codex", .serialized)
struct ChatBackendScenarioTests {
    @Test("a turn streams in deltas and completes; the reply is stored; the agent's version is shown", arguments: ChatFixture.Backend.allCases)
    func streams(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation()
        #expect(c.backend == backend.rawValue)
        try await f.send(c.id, "hello there")
        let messages = try await stream.messages(until: "complete", timeout: 30)
        #expect(messages.filter { $0.event == "chunk" }.count >= 2, "the reply arrives as several deltas")
        #expect(text(of: messages) == "Echo: hello there")
        #expect(try await f.request(.GET, "/api/conversations/\(c.id)/messages").json(Page<ChatMessage>.self).items.last?.text == "Echo: hello there")
        let after = try await f.conversation(c.id)
        #expect(after.agentVersion == (backend == .claude ? RealClaude.pinnedVersion : RealCodex.pinnedVersion))
        #expect(after.sessionId != nil && after.usage.outputTokens > 0)
        let health = try await f.request(.GET, "/api/health").json(HealthResponse.self)
        #expect(health.agents?.first { $0.name == backend.rawValue }?.error == nil)
    }

    @Test("a command waits for approval, nothing runs before it; allowed, it runs for real", arguments: ChatFixture.Backend.allCases)
    func approveCommand(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation()
        try await f.send(c.id, model(["say Creating it.", "bash touch made-by-agent.txt"], ["say Done."]))
        let request = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        #expect(request["tool_name"] as? String == backend.shellTool)
        #expect((request["session_rule"] as? [String: Any])?["display"] as? String == "\(backend.shellTool)(touch made-by-agent.txt)")
        #expect(!FileManager.default.fileExists(atPath: f.cwd + "/made-by-agent.txt"), "nothing ran before the approval")
        try await f.decide(try #require(request["approval_id"] as? String), #"{"decision":"allow"}"#)
        let rest = try await stream.messages(until: "complete", timeout: 30)
        #expect(rest.first { $0.event == "tool_end" }?.json["is_error"] as? Bool == false)
        #expect(FileManager.default.fileExists(atPath: f.cwd + "/made-by-agent.txt"), "the command really ran")
        #expect(text(of: rest).hasSuffix("Done."))
    }

    @Test("a file write denied with a message: nothing is written and the model reads the message", arguments: ChatFixture.Backend.allCases)
    func denyWrite(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation()
        let target = f.cwd + "/notes.md"
        try await f.send(c.id, model(["write \(target) :: draft"], ["say Understood."]))
        let request = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        #expect(request["tool_name"] as? String == backend.writeTool)
        try await f.decide(try #require(request["approval_id"] as? String), #"{"decision":"deny","message":"Put notes in docs/ instead"}"#)
        let rest = try await stream.messages(until: "complete", timeout: 30)
        #expect(rest.first { $0.event == "tool_end" }?.json["is_error"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: target), "nothing was written")
        let sentNext = f.modelRequests().map { JSONWriter.string(.object($0)) }
        #expect(sentNext.contains { $0.contains("Put notes in docs/ instead") }, "the model was told why")
    }

    @Test("allow for the session: the same command later runs unasked, recorded as allowed by the rule; another command asks", arguments: ChatFixture.Backend.allCases)
    func allowForSession(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation()
        try await f.send(c.id, model(["bash touch once.txt"], ["bash touch once.txt"], ["bash touch other.txt"], ["say Done."]))
        let first = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json["approval_id"] as? String)
        try await f.decide(first, #"{"decision":"allow_session"}"#)
        let other = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        #expect((other["input"] as? [String: Any])?["command"] as? String == "touch other.txt", "the rule covered the same command only")
        try await f.decide(try #require(other["approval_id"] as? String), #"{"decision":"allow"}"#)
        _ = try await stream.messages(until: "complete", timeout: 30)
        let allowed = try await f.request(.GET, "/api/approvals?state=allowed&conversation=\(c.id)").json(ApprovalList.self).approvals
        #expect(allowed.count == 3)
        #expect(allowed.filter { $0.decidedBy?.hasPrefix("rule ") == true }.count == 1, "the second call was answered by the rule")
        #expect(try await f.conversation(c.id).sessionRules.map(\.rule.display) == ["\(backend.shellTool)(touch once.txt)"])
    }

    @Test("interrupt stops a running turn and keeps the process; the next message is answered", arguments: ChatFixture.Backend.allCases)
    func interrupt(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation()
        try await f.send(c.id, model(["say Thinking", "hang"]))
        _ = try await stream.messages(until: "chunk", timeout: 30)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/interrupt").status == 202)
        let ended = try await stream.messages(until: "complete", timeout: 30)
        #expect(ended.last?.json["stop_reason"] as? String == "interrupted")
        try await f.send(c.id, "and now?")
        #expect(text(of: try await stream.messages(until: "complete", timeout: 30)) == "Echo: and now?")
    }

    @Test("an idle agent is stopped and the next message resumes its session, which remembers the conversation", arguments: ChatFixture.Backend.allCases)
    func resumeAfterIdle(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend) { $0.chatIdleStop = 1 }
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation(firstTurn: "the secret word is heron", timeout: 30)
        let session = try #require(try await f.conversation(c.id).sessionId)
        let firstPID = f.agentPIDs(backend)
        try await eventually(10, "the idle agent to be stopped") { f.agentPIDs(backend).isEmpty }
        // `{turn}` is how many prompts the model was sent in this request: 2 only if the first one came with it.
        try await f.send(c.id, model(["say prompts seen: {turn}"]))
        #expect(text(of: try await stream.messages(until: "complete", timeout: 30)) == "prompts seen: 2", "the resumed agent sent the history")
        #expect(try await f.conversation(c.id).sessionId == session, "the same session went on")
        #expect(!firstPID.isEmpty && f.agentPIDs(backend) != firstPID, "in a new process")
    }

    @Test("after a server restart the conversation goes on in the same session", arguments: ChatFixture.Backend.allCases)
    func restart(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let (c, _) = try await f.newConversation(firstTurn: "remember heron", timeout: 30)
        let session = try #require(try await f.conversation(c.id).sessionId)
        await f.server.stop()
        let server = try await f.restarted()
        defer { Task { await server.stop() } }
        let stream = try await f.events(c.id, base: server.base)
        let sent = try await f.send(c.id, model(["say prompts seen: {turn}"]), base: server.base)
        let messages = try await stream.messages(until: "complete", timeout: 30) { $0.json["turn_id"] as? String == sent.turnId }
        #expect(text(of: messages.filter { $0.json["turn_id"] as? String == sent.turnId }) == "prompts seen: 2", "the resumed agent sent the history")
        #expect(try await f.request(.GET, "/api/conversations/\(c.id)", base: server.base).json(Conversation.self).sessionId == session)
    }
}
