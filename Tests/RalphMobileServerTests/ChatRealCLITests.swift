import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// What trying the server with the real Claude Code CLI exposed (issue 16), each checked against the real CLI:
/// allow-for-session as narrow as shown, per-turn costs, a lost session, turns the CLI starts by itself, an overloaded
/// API, and the CLI's version and permission modes.
@Suite("The real Claude CLI's behaviour, handled", .serialized)
struct ChatRealCLITests {
    @Test("allow for the session covers exactly the command shown: no mode change, no directory, nothing written to the project; revoking it asks again")
    func allowForSessionIsNarrow() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let notes = f.cwd + "/notes.md"
        try await f.send(
            c.id,
            model(
                ["bash touch a.txt"], ["bash touch a.txt"], ["bash touch b.txt"], [#"tool Write {"file_path":"\#(notes)","content":"x"}"#],
                ["say Finished."]
            )
        )
        let first = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        #expect((first["session_rule"] as? [String: Any])?["display"] as? String == "Bash(touch a.txt)")
        // The real CLI suggests a prefix rule for the project's settings, the directory and accept-edits mode.
        let suggested = first["suggestions"] as? [[String: Any]] ?? []
        #expect(suggested.contains { $0["type"] as? String == "setMode" }, "the CLI offers a mode change (which must not be applied)")
        try await f.decide(try #require(first["approval_id"] as? String), #"{"decision":"allow_session"}"#)

        // The same command again is allowed by the rule without asking; a different one asks.
        let second = try await stream.messages(until: "permission_required", timeout: 30)
        #expect(second.contains { $0.event == "permission_resolved" && ($0.json["by"] as? String)?.hasPrefix("rule ") == true })
        let other = try #require(second.last?.json)
        #expect((other["input"] as? [String: Any])?["command"] as? String == "touch b.txt")
        try await f.decide(try #require(other["approval_id"] as? String), #"{"decision":"deny","message":"only a.txt"}"#)
        // A file write still asks: the CLI was not switched to accept edits.
        let write = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        #expect(write["tool_name"] as? String == "Write")
        try await f.decide(try #require(write["approval_id"] as? String), #"{"decision":"deny"}"#)
        _ = try await stream.messages(until: "complete", timeout: 30)
        #expect(FileManager.default.fileExists(atPath: f.cwd + "/a.txt"))
        #expect(!FileManager.default.fileExists(atPath: f.cwd + "/b.txt"))
        #expect(!FileManager.default.fileExists(atPath: notes))
        #expect(!FileManager.default.fileExists(atPath: f.cwd + "/.claude/settings.local.json"), "no rule was written into the project")

        let conversation = try await f.conversation(c.id)
        #expect(conversation.agentPermissionMode == "default")
        #expect(conversation.sessionRules.map(\.rule.display) == ["Bash(touch a.txt)"])
        #expect(conversation.sessionRules.first?.uses == 1)
        let byRule = try await f.request(.GET, "/api/approvals?state=allowed").json(ApprovalList.self).approvals
        #expect(byRule.contains { $0.decidedBy?.hasPrefix("rule ") == true }, "the automatic allow is on record")

        // Revoked: the same command asks again.
        let rule = try #require(conversation.sessionRules.first)
        let revoked = try await f.request(.DELETE, "/api/conversations/\(c.id)/session-rules/\(rule.id)")
        #expect(revoked.status == 200)
        #expect(try await f.request(.DELETE, "/api/conversations/\(c.id)/session-rules/\(rule.id)").status == 404)
        let permissions = try await stream.messages(until: "permissions")
        #expect((permissions.last?.json["session_rules"] as? [Any])?.isEmpty == true)
        try await f.send(c.id, model(["bash touch a.txt"], ["say ok"]))
        let asked = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        #expect((asked["input"] as? [String: Any])?["command"] as? String == "touch a.txt")
    }

    @Test("per-turn costs add up to the CLI's running total; a turn that failed on an API error costs nothing")
    func costs() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        // One model request; one with a tool round trip (two requests); an API error; one request.
        var turns: [String] = []
        for (message, end) in [
            (model(["say one"]), "complete"), (model(["bash ls"], ["say two"]), "complete"), (model(["error 400 bad request"]), "error"),
            (model(["say three"]), "complete"),
        ] {
            let sent = try await f.send(c.id, message)
            turns.append(sent.turnId)
            _ = try await stream.messages(until: end, timeout: 30) { $0.json["turn_id"] as? String == sent.turnId }
        }
        let stored = try await f.server.server.chat.store.turns(conversationID: c.id, states: [.complete, .error])
        let cost = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.costUsd ?? -1) })
        let unit = try #require(cost[turns[0]])
        #expect(unit > 0)
        // The CLI prices every scripted request alike, so a turn costs its number of model requests times one.
        #expect(abs(cost[turns[1]]! - 2 * unit) < 1e-9, "a two-request turn: \(cost[turns[1]]!) for a unit of \(unit)")
        #expect(cost[turns[2]] == 0, "the API error was not charged")
        #expect(abs(cost[turns[3]]! - unit) < 1e-9)
        let conversation = try await f.conversation(c.id)
        #expect(abs(conversation.totalCostUsd - 4 * unit) < 1e-9, "the turns add up to the CLI's running total: \(conversation.totalCostUsd)")
    }

    @Test("a session the CLI no longer has: the conversation goes on in a new session, and says so once")
    func lostSession() async throws {
        let f = try await ChatFixture.start { $0.chatIdleStop = 1 }
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation(firstTurn: "remember me", timeout: 30)
        let session = try #require(try await f.conversation(c.id).sessionId)
        try await eventually(15, "the idle CLI to be stopped") {
            let running = try await f.conversation(c.id).processRunning
            return !running && f.agentPIDs().isEmpty
        }
        // The CLI's transcript disappears (cleaned up, another machine, a new CLI version …).
        try FileManager.default.removeItem(atPath: try #require(f.sessionFile(session)))
        let sent = try await f.send(c.id, "are you there?")
        let events = try await stream.messages(until: "complete", timeout: 30) { $0.json["turn_id"] as? String == sent.turnId }
        let errors = events.filter { $0.event == "error" }
        #expect(errors.count == 1, "said once")
        let message = errors.first?.json["message"] as? String ?? ""
        #expect(message.contains("could not resume session \(session)"))
        #expect(message.contains("No conversation found"))
        #expect(message.contains("new session"))
        #expect(errors.first?.json["recoverable"] as? Bool == true)
        #expect(text(of: events) == "Echo: are you there?", "the message was answered")
        let now = try await f.conversation(c.id)
        #expect(now.sessionId != nil && now.sessionId != session)
        try await f.send(c.id, "and again")
        let next = try await stream.messages(until: "complete", timeout: 30)
        #expect(!next.contains { $0.event == "error" }, "later messages work")
    }

    @Test("a turn the CLI starts by itself after a background sub-agent is kept as its own turn; a message sent meanwhile gets its own answer")
    func agentStartedTurn() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let first = try await f.send(
            c.id, model(["say Starting a helper.", "agent helper :: #model\\nsay sub says 42"], ["say Helper started."], ["wait 1500", "say The helper said 42."])
        )
        _ = try await stream.messages(until: "complete", timeout: 30) { $0.json["turn_id"] as? String == first.turnId }
        // The helper finishes at once; the CLI then asks the model again by itself (slowly), and we write meanwhile.
        try await Task.sleep(for: .milliseconds(500))
        let second = try await f.send(c.id, "SECOND")
        var agentTurn: String?
        var replies: [String: String] = [:]
        var completed: Set<String> = []
        while !completed.contains(second.turnId) {
            let message = try await stream.nextMessage(timeout: 30)
            let turn = message.json["turn_id"] as? String ?? ""
            if message.event == "turn_start", message.json["origin"] as? String == "agent" {
                agentTurn = turn
                #expect((message.json["text"] as? String)?.contains("sub says 42") == true, "it says what woke the agent")
            }
            if message.event == "chunk" { replies[turn, default: ""] += message.json["text"] as? String ?? "" }
            if message.event == "complete" { completed.insert(turn) }
            #expect(message.event != "error")
        }
        let own = try #require(agentTurn, "the CLI's own turn was shown")
        #expect(completed.contains(own))
        #expect(replies[own] == "The helper said 42.")
        #expect(replies[second.turnId] == "Echo: SECOND", "the answer to our message is its own")
        let messages = try await f.request(.GET, "/api/conversations/\(c.id)/messages").json(Page<ChatMessage>.self).items
        #expect(messages.contains { $0.role == .system && $0.turnId == own })
        #expect(messages.contains { $0.role == .assistant && $0.text == "The helper said 42." })
        #expect(messages.contains { $0.role == .assistant && $0.text == "Echo: SECOND" })
    }

    @Test("an overloaded API: the conversation says it is retrying (attempt, error) on its stream and the global one, then the reply arrives")
    func overloadedAPI() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let global = try await SSETestClient.connect(f.base + "/api/events")
        _ = try await global.messages(until: "ready")
        try await f.send(c.id, model(["fail 529 2", "say recovered"]))
        let events = try await stream.messages(until: "complete", timeout: 60)
        let retries = events.filter { $0.event == "status" && $0.json["status"] as? String == "retrying" }
        #expect(retries.count == 2, "each attempt is announced")
        let retry = try #require(retries.first?.json["retry"] as? [String: Any])
        #expect(retry["attempt"] as? Int == 1)
        #expect(retry["error_status"] as? Int == 529)
        #expect((retry["error"] as? String)?.isEmpty == false)
        #expect(text(of: events) == "recovered")
        let updates = try await global.messages(until: "conversation.updated") { ($0.json["status"] as? String) == "retrying" }
        #expect((updates.last?.json["retry"] as? [String: Any])?["attempt"] != nil)
        let after = try await f.conversation(c.id)
        #expect(after.status == .idle && after.retry == nil)
    }

    @Test("the CLI's version and permission modes are read from it, shown in /api/health, and a mode it refuses is refused")
    func versionAndModes() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let health = try await f.request(.GET, "/api/health").json(HealthResponse.self)
        let agent = try #require(health.agents?.first)
        #expect(agent.version == RealClaude.pinnedVersion)
        #expect(Set(agent.permissionModes) == ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"])
        #expect(health.capabilities.contains("claude_version:\(RealClaude.pinnedVersion)"))
        #expect(health.capabilities.contains { $0.hasPrefix("claude_permission_modes:") && $0.contains("dontAsk") })
        let refused = try await f.request(.POST, "/api/conversations", #"{"cwd":"app","permission_mode":"delegate"}"#)
        #expect(refused.status == 400)
        #expect(refused.text.contains("manual"), "the error lists what the CLI accepts: \(refused.text)")
        let plan = try await f.request(.POST, "/api/conversations", #"{"cwd":"app","permission_mode":"plan"}"#)
        #expect(plan.status == 201)
        let c = try plan.json(Conversation.self)
        let stream = try await f.events(c.id)
        try await f.send(c.id, "plan it")
        _ = try await stream.messages(until: "complete", timeout: 30)
        #expect(try await f.conversation(c.id).agentPermissionMode == "plan")
    }
}
