import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Conversations end to end with the real Claude Code CLI (2.1.330): the real server, SQLite, the CLI's stream-json
/// protocol, and `fake-anthropic` standing in for the model API, which answers each message as a script.
@Suite("Chat with the real Claude CLI", .serialized)
struct ChatTests {
    @Test("a full turn streams its chunks in order, then completes; the reply is stored; the CLI's version and mode are shown")
    func fullTurn() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let sent = try await f.send(c.id, "hello there")
        #expect(sent.queuedPosition == 0)
        let messages = try await stream.messages(until: "complete", timeout: 30)
        let names = messages.map(\.event).filter { !["status", "title_update", "permissions"].contains($0) }
        #expect(names.first == "turn_start")
        #expect(names.last == "complete")
        let chunks = messages.filter { $0.event == "chunk" }
        #expect(chunks.count >= 2, "the reply arrives as several deltas")
        #expect(text(of: messages) == "Echo: hello there")
        // Ids are the conversation's sequence numbers: 1, 2, 3 … with no gap.
        let ids = messages.compactMap { $0.id.flatMap(Int.init) }
        #expect(ids == Array(1...ids.count))
        let complete = try #require(messages.last?.json)
        #expect(complete["turn_id"] as? String == sent.turnId)
        #expect((complete["cost_usd"] as? Double ?? 0) > 0)
        #expect(messages.contains { $0.event == "title_update" && $0.json["title"] as? String == "hello there" })

        let page = try await f.request(.GET, "/api/conversations/\(c.id)/messages").json(Page<ChatMessage>.self)
        #expect(page.items.map(\.role) == [.user, .assistant])
        #expect(page.items.last?.text == "Echo: hello there")
        #expect(page.items.last?.costUsd != nil)
        let after = try await f.conversation(c.id)
        #expect(after.title == "hello there")
        #expect(after.messageCount == 2)
        #expect(after.status == .idle)
        #expect(after.agentVersion == RealClaude.pinnedVersion)
        #expect(after.agentPermissionMode == "default")
        // The CLI ran in the conversation's directory: it keeps the session's transcript under that directory's name.
        let session = try #require(after.sessionId)
        let transcript = try #require(f.sessionFile(session))
        #expect(transcript.contains(f.cwd.replacingOccurrences(of: "/", with: "-")))
        #expect(f.modelRequests().count == 1)
    }

    @Test("a Bash call waits for approval; allow runs it for real with the original input; deciding twice is refused")
    func allow() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, model(["say Creating the file.", "bash touch made-by-claude.txt"], ["say Done."]))
        let asked = try await stream.messages(until: "permission_required", timeout: 30)
        let request = try #require(asked.last?.json)
        let approvalID = try #require(request["approval_id"] as? String)
        #expect(request["tool_name"] as? String == "Bash")
        #expect((request["session_rule"] as? [String: Any])?["display"] as? String == "Bash(touch made-by-claude.txt)")
        #expect(request["blocked_path"] as? String != nil || request["description"] as? String != nil, "the CLI's own words about the call are passed on")
        #expect(asked.contains { $0.event == "tool_start" })
        #expect(try await f.conversation(c.id).status == .awaitingApproval)
        #expect(try await f.pendingApprovals().map(\.id) == [approvalID])
        #expect(!FileManager.default.fileExists(atPath: f.cwd + "/made-by-claude.txt"), "nothing ran before the approval")

        let decided = try await f.decide(approvalID, #"{"decision":"allow"}"#)
        #expect(decided.state == .allowed)
        let rest = try await stream.messages(until: "complete", timeout: 30)
        #expect(rest.contains { $0.event == "permission_resolved" && $0.json["decision"] as? String == "allow" })
        let toolEnd = try #require(rest.first { $0.event == "tool_end" }?.json)
        #expect(toolEnd["is_error"] as? Bool == false)
        #expect(FileManager.default.fileExists(atPath: f.cwd + "/made-by-claude.txt"), "the command really ran")
        #expect(try await f.pendingApprovals().isEmpty)

        let again = try await f.request(.POST, "/api/approvals/\(approvalID)", #"{"decision":"deny"}"#)
        #expect(again.status == 409)
        #expect(again.text.contains("already decided"))
    }

    @Test("deny with a message: the tool does not run and the model gets the message as the tool's error result")
    func deny() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let target = f.cwd + "/notes.md"
        try await f.send(c.id, model([#"tool Write {"file_path":"\#(target)","content":"x"}"#], ["say Understood."]))
        let approvalID = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json["approval_id"] as? String)
        try await f.decide(approvalID, #"{"decision":"deny","message":"not that file"}"#)
        let rest = try await stream.messages(until: "complete", timeout: 30)
        let toolEnd = try #require(rest.first { $0.event == "tool_end" }?.json)
        #expect(toolEnd["is_error"] as? Bool == true)
        #expect((toolEnd["output"] as? String)?.contains("not that file") == true)
        #expect(!FileManager.default.fileExists(atPath: target))
        // What the model was sent next: the denial, as an error tool result.
        let last = try #require(f.modelRequests().last?["last"]?.arrayValue)
        let result = try #require(last.compactMap(\.objectValue).first { $0["type"] == "tool_result" })
        #expect(result["is_error"] == true)
        #expect(result["content"]?.stringValue?.contains("not that file") == true)
    }

    @Test("a steer interrupts the running turn and runs next in the same process")
    func steer() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let first = try await f.send(c.id, model(["say Working on it", "hang"]))
        _ = try await stream.messages(until: "chunk", timeout: 30)
        let pids = f.agentPIDs()
        #expect(pids.count == 1)
        let steered = try await f.send(c.id, "do this instead", mode: .steer)
        #expect(steered.queuedPosition == 1)
        let ended = try await stream.messages(until: "complete", timeout: 30) { $0.json["turn_id"] as? String == first.turnId }
        #expect(ended.last?.json["stop_reason"] as? String == "interrupted")
        let next = try await stream.messages(until: "complete", timeout: 30) { $0.json["turn_id"] as? String == steered.turnId }
        #expect(text(of: next) == "Echo: do this instead")
        #expect(f.agentPIDs() == pids, "the process was kept")
    }

    @Test("interrupt stops the turn and the next message works; with no turn running it is refused")
    func interrupt() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let idle = try await f.request(.POST, "/api/conversations/\(c.id)/interrupt")
        #expect(idle.status == 409)
        #expect(idle.text.contains("no turn is running"))
        let stream = try await f.events(c.id)
        try await f.send(c.id, model(["say Thinking", "hang"]))
        _ = try await stream.messages(until: "chunk", timeout: 30)
        let response = try await f.request(.POST, "/api/conversations/\(c.id)/interrupt")
        #expect(response.status == 202)
        let ended = try await stream.messages(until: "complete", timeout: 30)
        #expect(ended.last?.json["stop_reason"] as? String == "interrupted")
        try await f.send(c.id, "and now?")
        #expect(text(of: try await stream.messages(until: "complete", timeout: 30)) == "Echo: and now?")
    }

    @Test("20 queued messages are delivered to the CLI in order, one turn each")
    func queued() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        var turns: [String] = []
        for i in 1...20 { turns.append(try await f.send(c.id, "message \(i)").turnId) }
        var completed: [String] = []
        var replies: [String: String] = [:]
        var chunks: [String: String] = [:]
        while completed.count < 20 {
            let message = try await stream.nextMessage(timeout: 30)
            let turn = message.json["turn_id"] as? String ?? ""
            if message.event == "chunk" { chunks[turn, default: ""] += message.json["text"] as? String ?? "" }
            if message.event == "complete" {
                completed.append(turn)
                replies[turn] = chunks[turn]
            }
            #expect(message.event != "error")
        }
        #expect(completed == turns)
        #expect(turns.enumerated().allSatisfy { replies[$1] == "Echo: message \($0 + 1)" }, "each turn got its own answer")
        var all: [ChatMessage] = []
        var cursor: String?
        repeat {
            let page = try await f.request(.GET, "/api/conversations/\(c.id)/messages?limit=7" + (cursor.map { "&before=\($0)" } ?? "")).json(Page<ChatMessage>.self)
            all = page.items + all
            cursor = page.hasMore ? page.nextCursor : nil
        } while cursor != nil
        #expect(all.count == 40)
        #expect(Set(all.map(\.id)).count == 40)
        #expect(all.filter { $0.role == .user }.map(\.text) == (1...20).map { "message \($0)" })
    }

    @Test("the server restarts mid-turn; the phone resumes from its last event id with no gap and the session goes on")
    func restart() async throws {
        let f = try await ChatFixture.start()
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, "before the restart")
        let before = try await stream.messages(until: "complete", timeout: 30)
        let lastSeen = try #require(before.last?.id.flatMap(Int.init))
        let session = try #require(try await f.conversation(c.id).sessionId)
        try await f.send(c.id, model(["say Long job", "hang"]))
        let shown = text(of: try await stream.messages(until: "chunk", timeout: 30))
        #expect(!shown.isEmpty)
        await f.server.stop()
        #expect(f.agentPIDs().isEmpty, "the server stopped its CLI")

        let server = try await f.restarted()
        defer { Task { await server.stop(); await f.anthropic?.stop() } }
        let resumed = try await f.events(c.id, after: lastSeen, base: server.base)
        let replay = try await resumed.messages(until: "error")
        let ids = replay.compactMap { $0.id.flatMap(Int.init) }
        #expect(ids == Array((lastSeen + 1)...(lastSeen + ids.count)), "no gap, no repeat after \(lastSeen): \(ids)")
        #expect((replay.last?.json["message"] as? String)?.contains("restarted") == true)
        // What the phone had already shown of the cut reply is kept as a message.
        let stored = try await f.request(.GET, "/api/conversations/\(c.id)/messages", base: server.base).json(Page<ChatMessage>.self).items
        #expect(stored.last?.text == shown && stored.last?.role == .assistant)
        try await f.send(c.id, "after the restart", base: server.base)
        let after = try await resumed.messages(until: "complete", timeout: 30)
        #expect(text(of: after) == "Echo: after the restart")
        let now = try await f.request(.GET, "/api/conversations/\(c.id)", base: server.base).json(Conversation.self)
        #expect(now.sessionId == session, "the CLI resumed the same session")
    }

    @Test("approvals show up on the global stream while pending, and leave it when resolved")
    func globalStream() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let global = try await SSETestClient.connect(f.base + "/api/events")
        _ = try await global.messages(until: "ready")
        try await f.send(c.id, model(["bash make"]))
        let pending = try await global.messages(until: "approval.pending", timeout: 30)
        let approval = try #require(pending.last?.json)
        #expect(approval["tool_name"] as? String == "Bash")
        #expect(pending.contains { $0.event == "conversation.updated" })
        let late = try await SSETestClient.connect(f.base + "/api/events")
        let snapshot = try await late.messages(until: "ready")
        #expect(snapshot.contains { $0.event == "approval.pending" })
        let id = try #require(approval["id"] as? String)
        #expect(try await f.request(.POST, "/api/approvals", #"{"ids":["\#(id)"],"decision":"deny"}"#).status == 200)
        let resolved = try await global.messages(until: "approval.resolved")
        #expect(resolved.last?.json["state"] as? String == "denied")
    }

    @Test("an approval whose turn was interrupted cannot be decided")
    func approvalForFinishedTurn() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, model(["bash ./deploy.sh"]))
        let approvalID = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json["approval_id"] as? String)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/interrupt").status == 202)
        _ = try await stream.messages(until: "complete", timeout: 30)
        let late = try await f.request(.POST, "/api/approvals/\(approvalID)", #"{"decision":"allow"}"#)
        #expect(late.status == 409)
        #expect(late.text.contains("no longer pending"))
        let stored = try await f.request(.GET, "/api/approvals?state=all").json(ApprovalList.self).approvals
        #expect(stored.first { $0.id == approvalID }?.state == .cancelled)
    }

    @Test("a silent turn is reported as stalled and keeps running; an idle CLI is stopped and resumed on the next message")
    func stallAndIdleStop() async throws {
        let f = try await ChatFixture.start {
            $0.chatStallAfter = 1
            $0.chatIdleStop = 1
        }
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, model(["wait 3000", "say Still here."]))
        let stalled = try await stream.messages(until: "status", timeout: 30) { $0.json["status"] as? String == "stalled" }
        #expect((stalled.last?.json["silent_secs"] as? Int ?? 0) >= 1)
        let done = try await stream.messages(until: "complete", timeout: 30)
        #expect(text(of: done) == "Still here.", "the stalled turn was not killed")
        let session = try #require(try await f.conversation(c.id).sessionId)
        let first = f.agentPIDs()
        try await eventually(15, "the idle CLI to be stopped") {
            try await f.conversation(c.id).processRunning == false && f.agentPIDs().isEmpty
        }
        try await f.send(c.id, "wake up")
        let again = try await stream.messages(until: "complete", timeout: 30)
        #expect(!again.contains { $0.event == "error" })
        #expect(text(of: again) == "Echo: wake up")
        #expect(f.agentPIDs() != first, "a new process")
        #expect(try await f.conversation(c.id).sessionId == session, "which resumed the session")
    }
}

/// The text of the `chunk` events among `messages`, joined.
func text(of messages: [SSEMessage]) -> String {
    messages.filter { $0.event == "chunk" }.map { $0.json["text"] as? String ?? "" }.joined()
}

/// The strings of a JSON array (an argv in fake-claude's log).
func strings(_ value: JSONValue?) -> [String] {
    guard case .array(let items)? = value else { return [] }
    return items.compactMap(\.stringValue)
}
