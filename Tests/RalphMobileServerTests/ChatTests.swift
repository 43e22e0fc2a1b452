import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Conversations end to end: the real server, SQLite, and the `claude` test double speaking stream-json.
@Suite("Chat with the Claude CLI double", .serialized)
struct ChatTests {
    @Test("a full turn streams its chunks in order, then completes; the reply is stored")
    func fullTurn() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let sent = try await f.send(c.id, "hello there")
        #expect(sent.queuedPosition == 0)
        let messages = try await stream.messages(until: "complete")
        let names = messages.map(\.event).filter { $0 != "status" && $0 != "title_update" }
        #expect(names.first == "turn_start")
        #expect(names.last == "complete")
        let chunks = messages.filter { $0.event == "chunk" }
        #expect(chunks.count >= 2, "the reply arrives as several deltas")
        #expect(chunks.map { $0.json["text"] as? String ?? "" }.joined() == "Echo: hello there")
        // Ids are the conversation's sequence numbers: 1, 2, 3 … with no gap.
        let ids = messages.compactMap { $0.id.flatMap(Int.init) }
        #expect(ids == Array(1...ids.count))
        let complete = try #require(messages.last?.json)
        #expect(complete["turn_id"] as? String == sent.turnId)
        #expect((complete["cost_usd"] as? Double ?? 0) > 0)
        #expect(messages.contains { $0.event == "title_update" && $0.json["title"] as? String == "hello there" })
        let titleIndex = try #require(messages.firstIndex { $0.event == "title_update" })
        #expect(titleIndex < messages.count - 1, "the title comes before the terminal event")

        let page = try await f.request(.GET, "/api/conversations/\(c.id)/messages").json(Page<ChatMessage>.self)
        #expect(page.items.map(\.role) == [.user, .assistant])
        #expect(page.items.last?.text == "Echo: hello there")
        #expect(page.items.last?.costUsd != nil)
        #expect((page.lastEventId ?? 0) >= (ids.last ?? .max), "the page was read after the last event seen")
        let after = try await f.request(.GET, "/api/conversations/\(c.id)").json(Conversation.self)
        #expect(after.title == "hello there")
        #expect(after.messageCount == 2)
        #expect(after.sessionId != nil)
        #expect(after.status == .idle)
        // The CLI was started with the flags of the design, in the conversation's directory.
        let start = try #require(f.starts().first)
        let argv = strings(start["argv"])
        for flag in ["-p", "--input-format", "--output-format", "--verbose", "--include-partial-messages", "--permission-prompt-tool"] {
            #expect(argv.contains(flag), "\(flag) missing from \(argv)")
        }
        #expect(start["cwd"]?.stringValue == f.root + "/app" || start["cwd"]?.stringValue?.hasSuffix("/root/app") == true)
    }

    @Test("a tool call waits for approval; allow sends the original input back to the CLI")
    func allow() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, script("say Checking.", #"tool Bash {"command":"ls -la","description":"List"}"#, "say Done."))
        let asked = try await stream.messages(until: "permission_required")
        let request = try #require(asked.last?.json)
        let approvalID = try #require(request["approval_id"] as? String)
        #expect(request["tool_name"] as? String == "Bash")
        #expect(asked.contains { $0.event == "tool_start" })
        let conversation = try await f.request(.GET, "/api/conversations/\(c.id)").json(Conversation.self)
        #expect(conversation.status == .awaitingApproval)
        #expect(try await f.pendingApprovals().map(\.id) == [approvalID])

        let decided = try await f.request(.POST, "/api/approvals/\(approvalID)", #"{"decision":"allow"}"#)
        #expect(decided.status == 200)
        #expect(try decided.json(Approval.self).state == .allowed)
        let rest = try await stream.messages(until: "complete")
        #expect(rest.contains { $0.event == "permission_resolved" && $0.json["decision"] as? String == "allow" })
        let toolEnd = try #require(rest.first { $0.event == "tool_end" }?.json)
        #expect(toolEnd["is_error"] as? Bool == false)
        #expect((toolEnd["output"] as? String)?.contains("ran Bash") == true)

        let response = try #require(f.controlResponses().first)
        let inner = try #require(response["response"]?.objectValue)
        #expect(inner["subtype"] == "success")
        let answer = try #require(inner["response"]?.objectValue)
        #expect(answer["behavior"] == "allow")
        #expect(answer["updatedInput"] == ["command": "ls -la", "description": "List"])
        #expect(answer["updatedPermissions"] == nil)
        #expect(try await f.pendingApprovals().isEmpty)

        // Deciding again is refused and changes nothing.
        let again = try await f.request(.POST, "/api/approvals/\(approvalID)", #"{"decision":"deny"}"#)
        #expect(again.status == 409)
        #expect(again.text.contains("already decided"))
        #expect(f.controlResponses().count == 1)
    }

    @Test("deny sends the person's message; the tool result is an error the model sees")
    func deny() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, script(#"tool Write {"file_path":"/etc/passwd","content":"x"}"#, "say Understood."))
        let approvalID = try #require(try await stream.messages(until: "permission_required").last?.json["approval_id"] as? String)
        let decided = try await f.request(.POST, "/api/approvals/\(approvalID)", #"{"decision":"deny","message":"not that file"}"#)
        #expect(decided.status == 200)
        let rest = try await stream.messages(until: "complete")
        let toolEnd = try #require(rest.first { $0.event == "tool_end" }?.json)
        #expect(toolEnd["is_error"] as? Bool == true)
        #expect(toolEnd["output"] as? String == "not that file")
        let answer = try #require(f.controlResponses().first?["response"]?.objectValue?["response"]?.objectValue)
        #expect(answer["behavior"] == "deny")
        #expect(answer["message"] == "not that file")
    }

    @Test("allow for the session sends the suggested rules; the CLI does not ask again for that tool")
    func allowForSession() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, script(#"tool Bash {"command":"git status"}"#, #"tool Bash {"command":"git log"}"#, "say ok"))
        let approvalID = try #require(try await stream.messages(until: "permission_required").last?.json["approval_id"] as? String)
        #expect(try await f.request(.POST, "/api/approvals/\(approvalID)", #"{"decision":"allow_session"}"#).status == 200)
        let rest = try await stream.messages(until: "complete")
        #expect(!rest.contains { $0.event == "permission_required" }, "the second Bash call was not asked about")
        #expect(rest.filter { $0.event == "tool_end" }.count == 2)
        let answer = try #require(f.controlResponses().first?["response"]?.objectValue?["response"]?.objectValue)
        #expect(answer["behavior"] == "allow")
        guard case .array(let rules)? = answer["updatedPermissions"], let rule = rules.first?.objectValue else {
            Issue.record("no updatedPermissions in \(answer)")
            return
        }
        #expect(rule["destination"] == "session")
        #expect(rule["type"] == "addRules")
    }

    @Test("a steer interrupts the running turn and runs next; the interrupt reaches the CLI")
    func steer() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let first = try await f.send(c.id, script("say Working on it", "sleep 30", "say never"))
        _ = try await stream.messages(until: "chunk")
        let steered = try await f.send(c.id, "do this instead", mode: .steer)
        #expect(steered.queuedPosition == 1)
        let ended = try await stream.messages(until: "complete") { $0.json["turn_id"] as? String == first.turnId }
        #expect(ended.last?.json["stop_reason"] as? String == "interrupted")
        let next = try await stream.messages(until: "complete") { $0.json["turn_id"] as? String == steered.turnId }
        #expect(next.filter { $0.event == "chunk" }.map { $0.json["text"] as? String ?? "" }.joined() == "Echo: do this instead")
        let stdin = f.stdinLines()
        #expect(stdin.contains { $0["type"] == "control_request" && $0["request"]?.objectValue?["subtype"] == "interrupt" })
        #expect(f.starts().count == 1, "the process was kept")
    }

    @Test("interrupt stops the turn; with no turn running it is refused")
    func interrupt() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let idle = try await f.request(.POST, "/api/conversations/\(c.id)/interrupt")
        #expect(idle.status == 409)
        #expect(idle.text.contains("no turn is running"))
        let stream = try await f.events(c.id)
        try await f.send(c.id, script("sleep 30"))
        _ = try await stream.messages(until: "turn_start")
        let response = try await f.request(.POST, "/api/conversations/\(c.id)/interrupt")
        #expect(response.status == 202)
        let ended = try await stream.messages(until: "complete")
        #expect(ended.last?.json["stop_reason"] as? String == "interrupted")
    }

    @Test("the CLI crashes mid-turn: the user gets an error and can continue in the same session")
    func crash() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, "first")
        _ = try await stream.messages(until: "complete")
        try await f.send(c.id, script("say Starting", "crash"))
        let failed = try await stream.messages(until: "error")
        let error = try #require(failed.last?.json)
        #expect(error["recoverable"] as? Bool == true)
        #expect((error["message"] as? String)?.contains("exit code 3") == true)
        #expect((error["message"] as? String)?.contains("simulated crash") == true)
        // The partial reply is kept.
        #expect(failed.contains { $0.event == "segment_end" })
        try await f.send(c.id, "still there?")
        let again = try await stream.messages(until: "complete")
        #expect(again.filter { $0.event == "chunk" }.map { $0.json["text"] as? String ?? "" }.joined() == "Echo: still there?")
        let starts = f.starts()
        #expect(starts.count == 2)
        let session = try #require(starts.first?["session_id"]?.stringValue)
        let argv = strings(starts.last?["argv"])
        #expect(argv.contains("--resume") && argv.contains(session), "the second process resumed \(session): \(argv)")
    }

    @Test("50 queued messages are delivered to the CLI in order, one turn each")
    func fiftyQueued() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        var turns: [String] = []
        for i in 1...50 { turns.append(try await f.send(c.id, "message \(i)").turnId) }
        var completed: [String] = []
        while completed.count < 50 {
            let message = try await stream.nextMessage(timeout: 20)
            if message.event == "complete", let turn = message.json["turn_id"] as? String { completed.append(turn) }
            #expect(message.event != "error")
        }
        #expect(completed == turns)
        let sent = f.stdinLines().filter { $0["type"] == "user" }.compactMap { $0["message"]?.objectValue?["content"]?.stringValue }
        #expect(sent == (1...50).map { "message \($0)" })
        var all: [ChatMessage] = []
        var cursor: String?
        repeat {
            let page = try await f.request(.GET, "/api/conversations/\(c.id)/messages?limit=7" + (cursor.map { "&before=\($0)" } ?? "")).json(Page<ChatMessage>.self)
            all = page.items + all
            cursor = page.hasMore ? page.nextCursor : nil
        } while cursor != nil
        #expect(all.count == 100)
        #expect(Set(all.map(\.id)).count == 100)
        #expect(all.filter { $0.role == .user }.map(\.text) == (1...50).map { "message \($0)" })
    }

    @Test("the server restarts mid-conversation; the phone resumes from its last event id with no gap")
    func restart() async throws {
        let f = try await ChatFixture.start()
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, "before the restart")
        let before = try await stream.messages(until: "complete")
        let lastSeen = try #require(before.last?.id.flatMap(Int.init))
        try await f.send(c.id, script("say Long job", "sleep 30"))
        _ = try await stream.messages(until: "chunk")
        await f.stop()

        let server = try await f.restarted()
        defer { Task { await server.stop() } }
        // The turn cut by the restart ended with an error; then a new message resumes the session.
        let resumed = try await f.events(c.id, after: lastSeen, base: server.base)
        let replay = try await resumed.messages(until: "error")
        let ids = replay.compactMap { $0.id.flatMap(Int.init) }
        #expect(ids == Array((lastSeen + 1)...(lastSeen + ids.count)), "no gap, no repeat after \(lastSeen): \(ids)")
        #expect(replay.first { $0.event != "status" }?.event == "turn_start")
        #expect((replay.last?.json["message"] as? String)?.contains("restarted") == true)
        // What the phone had already shown of the cut reply is kept as a message (announced before the error).
        let kept = try #require(replay.last { $0.event == "segment_end" }?.json["message_id"] as? String)
        let stored = try await f.request(.GET, "/api/conversations/\(c.id)/messages", base: server.base).json(Page<ChatMessage>.self).items
        #expect(stored.last?.id == kept && stored.last?.text == "Long job" && stored.last?.role == .assistant)
        try await f.send(c.id, "after the restart", base: server.base)
        let after = try await resumed.messages(until: "complete")
        #expect(after.compactMap { $0.id.flatMap(Int.init) }.first == (ids.last ?? lastSeen) + 1)
        let argv = strings(f.starts().last?["argv"])
        #expect(argv.contains("--resume"))
    }

    @Test("approvals show up on the global stream while pending, and leave it when resolved")
    func globalStream() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let global = try await SSETestClient.connect(f.base + "/api/events")
        _ = try await global.messages(until: "ready")
        try await f.send(c.id, script(#"tool Bash {"command":"make"}"#))
        let pending = try await global.messages(until: "approval.pending")
        let approval = try #require(pending.last?.json)
        #expect(approval["tool_name"] as? String == "Bash")
        #expect(pending.contains { $0.event == "conversation.updated" })
        // A phone connecting now is told what waits for it.
        let late = try await SSETestClient.connect(f.base + "/api/events")
        let snapshot = try await late.messages(until: "ready")
        #expect(snapshot.contains { $0.event == "approval.pending" })
        let id = try #require(approval["id"] as? String)
        #expect(try await f.request(.POST, "/api/approvals", #"{"ids":["\#(id)"],"decision":"allow"}"#).status == 200)
        let resolved = try await global.messages(until: "approval.resolved")
        #expect(resolved.last?.json["state"] as? String == "allowed")
    }

    @Test("bad input gets a clear error and changes nothing")
    func badInput() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let outside = try await f.request(.POST, "/api/conversations", #"{"cwd":"/etc"}"#)
        #expect(outside.status == 400)
        #expect(outside.text.hasPrefix(#"{"error":"invalid_path: "#))
        let missing = try await f.request(.POST, "/api/conversations", #"{"cwd":"nope"}"#)
        #expect(missing.status == 400)
        let escape = try await f.request(.POST, "/api/conversations", #"{"cwd":"app/../../.."}"#)
        #expect(escape.status == 400)
        let backend = try await f.request(.POST, "/api/conversations", #"{"cwd":"app","backend":"gpt"}"#)
        #expect(backend.status == 400)
        #expect(backend.text.contains("unknown backend"))
        #expect(try await f.request(.GET, "/api/conversations").json(Page<Conversation>.self).items.isEmpty)

        #expect(try await f.request(.GET, "/api/conversations/c_nope").status == 404)
        #expect(try await f.request(.POST, "/api/conversations/c_nope/messages", #"{"text":"hi"}"#).status == 404)
        #expect(try await f.request(.GET, "/api/conversations/c_nope/events").status == 404)
        #expect(try await f.request(.POST, "/api/approvals/a_nope", #"{"decision":"allow"}"#).status == 404)

        let c = try await f.create()
        let empty = try await f.request(.POST, "/api/conversations/\(c.id)/messages", #"{"text":"  \n "}"#)
        #expect(empty.status == 400)
        #expect(empty.text.contains("text cannot be empty"))
        let huge = try await f.request(.POST, "/api/conversations/\(c.id)/messages", f.json(SendMessageRequest(text: String(repeating: "x", count: 100_001))))
        #expect(huge.status == 400)
        #expect(huge.text.contains("longer than"))
        let badMode = try await f.request(.POST, "/api/conversations/\(c.id)/messages", #"{"text":"hi","mode":"shout"}"#)
        #expect(badMode.status == 400)
        let badDecision = try await f.request(.POST, "/api/approvals/a_x", #"{"decision":"maybe"}"#)
        #expect(badDecision.status == 400)
        #expect(try await f.request(.GET, "/api/conversations?limit=0").status == 400)
        #expect(try await f.request(.GET, "/api/conversations?cursor=garbage").status == 400)
        #expect(try await f.request(.GET, "/api/approvals?state=maybe").status == 400)
        #expect(try await f.request(.PATCH, "/api/conversations/\(c.id)", #"{"title":"   "}"#).status == 400)
        let unchanged = try await f.request(.GET, "/api/conversations/\(c.id)").json(Conversation.self)
        #expect(unchanged.messageCount == 0)
        #expect(f.starts().isEmpty, "no CLI was started by bad requests")
    }

    @Test("an approval whose turn ended cannot be decided")
    func approvalForFinishedTurn() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, script(#"tool Bash {"command":"deploy"}"#))
        let approvalID = try #require(try await stream.messages(until: "permission_required").last?.json["approval_id"] as? String)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/interrupt").status == 202)
        _ = try await stream.messages(until: "complete")
        let late = try await f.request(.POST, "/api/approvals/\(approvalID)", #"{"decision":"allow"}"#)
        #expect(late.status == 409)
        #expect(late.text.contains("no longer pending"))
        let stored = try await f.request(.GET, "/api/approvals?state=all").json(ApprovalList.self).approvals
        #expect(stored.first { $0.id == approvalID }?.state == .cancelled)
    }

    @Test("conversations: create, rename, pin (stored on the server), list with filters, delete")
    func crud() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let a = try await f.create(title: "Alpha")
        let b = try await f.create()
        #expect(a.title == "Alpha")
        #expect(b.title.isEmpty)
        let pinned = try await f.request(.PATCH, "/api/conversations/\(b.id)", #"{"pinned":true,"title":"Beta"}"#).json(Conversation.self)
        #expect(pinned.pinned && pinned.title == "Beta" && pinned.titleIsCustom)
        let onlyPinned = try await f.request(.GET, "/api/conversations?pinned=true").json(Page<Conversation>.self)
        #expect(onlyPinned.items.map(\.id) == [b.id])
        _ = try await f.request(.PATCH, "/api/conversations/\(a.id)", #"{"archived":true}"#)
        #expect(try await f.request(.GET, "/api/conversations").json(Page<Conversation>.self).items.map(\.id) == [b.id])
        #expect(try await f.request(.GET, "/api/conversations?archived=true").json(Page<Conversation>.self).items.count == 2)
        let deleted = try await f.request(.DELETE, "/api/conversations/\(a.id)")
        #expect(deleted.status == 200)
        #expect(try await f.request(.GET, "/api/conversations/\(a.id)").status == 404)
        #expect(try await f.request(.DELETE, "/api/conversations/\(a.id)").status == 404)
    }

    @Test("a viewer reads conversations but cannot chat or decide")
    func viewerReadsOnly() async throws {
        let f = try await ChatFixture.start(apiKey: "admin-key-for-chat-tests")
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let created = try await f.request(.POST, "/api/keys", #"{"role":"viewer","name":"phone"}"#).json(CreatedAPIKey.self)
        let viewer = [("X-Api-Key", created.secret)]
        #expect(try await f.request(.GET, "/api/conversations", headers: viewer).status == 200)
        #expect(try await f.request(.GET, "/api/conversations/\(c.id)/messages", headers: viewer).status == 200)
        #expect(try await f.request(.GET, "/api/approvals", headers: viewer).status == 200)
        let send = try await f.request(.POST, "/api/conversations/\(c.id)/messages", #"{"text":"hi"}"#, headers: viewer)
        #expect(send.status == 403)
        #expect(send.text.contains("needs operator"))
        #expect(try await f.request(.POST, "/api/conversations", #"{"cwd":"app"}"#, headers: viewer).status == 403)
        #expect(try await f.request(.PATCH, "/api/conversations/\(c.id)", #"{"pinned":true}"#, headers: viewer).status == 403)
        #expect(try await f.request(.POST, "/api/approvals/a_x", #"{"decision":"allow"}"#, headers: viewer).status == 403)
        #expect(f.starts().isEmpty)
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
        try await f.send(c.id, script("say Thinking", "sleep 2.5", "say Still here."))
        let stalled = try await stream.messages(until: "status", timeout: 5) { $0.json["status"] as? String == "stalled" }
        #expect((stalled.last?.json["silent_secs"] as? Int ?? 0) >= 1)
        let done = try await stream.messages(until: "complete", timeout: 10)
        #expect(done.contains { $0.event == "chunk" && ($0.json["text"] as? String ?? "").contains("here") }, "the stalled turn was not killed")
        // Idle for more than a second: the process is stopped, without an error.
        try await eventually(8, "the idle CLI to be stopped") {
            try await f.request(.GET, "/api/conversations/\(c.id)").json(Conversation.self).processRunning == false
        }
        try await f.send(c.id, "wake up")
        let again = try await stream.messages(until: "complete")
        #expect(!again.contains { $0.event == "error" })
        #expect(f.starts().count == 2)
        let argv = strings(f.starts().last?["argv"])
        #expect(argv.contains("--resume"))
    }

    @Test("a missing CLI is an error that says so, not a hang")
    func missingBackend() async throws {
        let f = try await ChatFixture.start { $0.claudeCommand = "/nonexistent/claude" }
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, "hello")
        let error = try #require(try await stream.messages(until: "error").last?.json)
        #expect((error["message"] as? String)?.contains("/nonexistent/claude") == true)
        #expect(error["recoverable"] as? Bool == false)
    }
}

/// The strings of a JSON array (an argv in fake-claude's log).
func strings(_ value: JSONValue?) -> [String] {
    guard case .array(let items)? = value else { return [] }
    return items.compactMap(\.stringValue)
}
