import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The server-side auto-reply loop against the real server, SQLite and the real Claude CLI (answering through
/// fake-anthropic, which runs each prompt as a script).
@Suite("Auto-reply loops", .serialized)
struct AutoReplyTests {
    static func settings(_ json: String) -> String { json }

    func status(_ f: ChatFixture, _ id: String, base: String? = nil) async throws -> AutoReplyStatus {
        try await f.request(.GET, "/api/conversations/\(id)/auto-reply", base: base).json(AutoReplyStatus.self)
    }

    /// The messages sent in the conversation (the loop's prompts), oldest first.
    func userLines(_ f: ChatFixture, _ id: String) async throws -> [String] {
        try await f.request(.GET, "/api/conversations/\(id)/messages?limit=200").json(Page<ChatMessage>.self).items.filter { $0.role == .user }.map(\.text)
    }

    @Test("a loop runs 5 cycles unattended and stops exactly at its message limit")
    func fiveCycles() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let started = try await f.request(
            .POST, "/api/conversations/\(c.id)/auto-reply/start",
            ##"{"mode":"message_based","max_messages":5,"next_prompt":{"strategy":"fixed","text":"#model\nsay Step {turn} of the refactoring is in place."}}"##
        )
        #expect(started.status == 200, "\(started.text)")
        #expect(try started.json(AutoReplyStatus.self).progress.state == .running)
        let all = try await stream.messages(until: "auto_reply", timeout: 60) { $0.json["state"] as? String == "stopped" && $0.json["stop_reason"] != nil }
        let last = try #require(all.last?.json)
        #expect(last["stop_reason"] as? String == "message_limit")
        #expect(last["messages"] as? Int == 5)
        #expect(last["iterations"] as? Int == 5)
        #expect(all.filter { $0.event == "complete" }.count == 5)
        #expect(try await userLines(f, c.id) == Array(repeating: "#model\nsay Step {turn} of the refactoring is in place.", count: 5))
        #expect(text(of: all).contains("Step 5 of the refactoring"))
        let progress = try await status(f, c.id).progress
        #expect(progress.state == .stopped && progress.stopReason == .messageLimit)
        // Stopping a stopped loop is refused and changes nothing.
        let again = try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/stop")
        #expect(again.status == 409)
        #expect(try await userLines(f, c.id).count == 5)
    }

    @Test("a pending approval pauses the loop; once answered, the loop continues")
    func pausesOnApproval() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        let prompt = model(["bash make"], ["say built {turn}"])
        let body = try String(decoding: WireJSON.encode(AutoReplySettings(mode: .messageBased, maxMessages: 2, nextPrompt: NextPrompt(strategy: .fixed, text: prompt))), as: UTF8.self)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/start", body).status == 200)
        for cycle in 1...2 {
            let asked = try await stream.messages(until: "permission_required", timeout: 30)
            _ = asked
            let paused = try await stream.messages(until: "auto_reply") { $0.json["state"] as? String == "paused" }
            #expect(paused.last?.json["pause_reason"] as? String == "approval", "cycle \(cycle)")
            let approval = try #require(try await f.pendingApprovals(c.id).first)
            #expect(try await f.request(.POST, "/api/approvals/\(approval.id)", #"{"decision":"allow"}"#).status == 200)
            _ = try await stream.messages(until: "auto_reply") { $0.json["state"] as? String != "paused" }
        }
        let end = try await stream.messages(until: "auto_reply", timeout: 30) { $0.json["state"] as? String == "stopped" && $0.json["stop_reason"] != nil }
        #expect(end.last?.json["stop_reason"] as? String == "message_limit")
        #expect(try await userLines(f, c.id).count == 2)
    }

    @Test("a showstopper pauses the loop with its reason and raises a notice on the global stream")
    func showstopper() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let global = try await SSETestClient.connect(f.base + "/api/events")
        _ = try await global.messages(until: "ready")
        let prompt = model(["say I cannot continue: credentials required for the deploy. Please add your API key."])
        let body = try String(decoding: WireJSON.encode(AutoReplySettings(mode: .untilCompletion, nextPrompt: NextPrompt(strategy: .fixed, text: prompt))), as: UTF8.self)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/start", body).status == 200)
        let notice = try await global.messages(until: "auto_reply.notice", timeout: 30)
        let progress = try #require(notice.last?.json)
        #expect(progress["state"] as? String == "paused")
        #expect(progress["pause_reason"] as? String == "showstopper")
        #expect((progress["detail"] as? String)?.isEmpty == false)
        let shown = try await status(f, c.id).progress
        #expect(shown.state == .paused && shown.pauseReason == .showstopper)
        #expect(try await userLines(f, c.id).count == 1, "nothing more was sent")
        // Resuming sends the next prompt.
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/resume").status == 200)
        try await eventually(20, "the next prompt") { try await userLines(f, c.id).count == 2 }
    }

    @Test("a loop running when the server restarts comes back paused, with the reason")
    func survivesRestart() async throws {
        let f = try await ChatFixture.start()
        let c = try await f.create()
        let prompt = model(["say working", "hang"])
        let body = try String(decoding: WireJSON.encode(AutoReplySettings(mode: .smartStop, nextPrompt: NextPrompt(strategy: .fixed, text: prompt))), as: UTF8.self)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/start", body).status == 200)
        try await eventually(20, "the first prompt") { try await userLines(f, c.id).count == 1 }
        await f.server.stop()
        let server = try await f.restarted()
        defer { Task { await server.stop(); await f.anthropic?.stop() } }
        try await eventually(10, "the loop to be paused") { try await status(f, c.id, base: server.base).progress.state == .paused }
        let progress = try await status(f, c.id, base: server.base).progress
        #expect(progress.pauseReason == .restart)
        #expect(progress.messages == 1)
        let settings = try await status(f, c.id, base: server.base).settings
        #expect(settings.nextPrompt.text == prompt)
    }

    @Test("settings: validation, partial JSON, presets, import/export, project defaults")
    func settings() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let fresh = try await status(f, c.id)
        #expect(fresh.progress.state == .stopped)
        for bad in [
            #"{"mode":"time_based","max_minutes":0}"#, #"{"mode":"time_based","max_minutes":481}"#, #"{"mode":"message_based","max_messages":101}"#,
            #"{"min_confidence":1.5}"#, #"{"mode":"forever"}"#, #"{"mode":"time_based"}"#, #"{"max_iterations":0}"#,
        ] {
            let response = try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply", bad)
            #expect(response.status == 400, "\(bad) → \(response.status) \(response.text)")
            #expect(response.text.hasPrefix(#"{"error":"invalid_body: "#))
        }
        let after = try await status(f, c.id)
        #expect(after.settings == fresh.settings && after.progress.state == .stopped, "bad settings changed nothing")
        // The old app's spellings are accepted and answered in the canonical one.
        let put = try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply", #"{"mode":"timed","max_minutes":30}"#)
        #expect(put.status == 200, "\(put.text)")
        let exported = try put.json(AutoReplyStatus.self).settings
        #expect(exported.mode == .timeBased && exported.maxMinutes == 30 && exported.minConfidence == AutoReplySettings().minConfidence)
        let unknown = try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply", #"{"mode":"forever"}"#)
        #expect(unknown.text.contains("unknown mode 'forever'") && unknown.text.contains("smart_stop"), "\(unknown.text)")
        let prompt = try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply", #"{"mode":"hybrid","max_messages":3,"next_prompt":{"text":"go on"}}"#)
        #expect(prompt.status == 200, "\(prompt.text)")
        #expect(try prompt.json(AutoReplyStatus.self).settings.nextPrompt == NextPrompt(strategy: .fixed, text: "go on"))
        let presets = try await f.request(.GET, "/api/auto-reply/presets").json([String: AutoReplySettings].self)
        #expect(presets.keys.contains("overnight"))
        let preset = try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply?preset=quick&default=true").json(AutoReplyStatus.self)
        #expect(preset.settings == presets["quick"])
        #expect(try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply?preset=nope").status == 400)
        let both = try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply?preset=quick", "[null, null]")
        #expect(both.status == 400 && both.text.contains("not both"), "a body beside a preset is refused, not ignored: \(both.text)")
        // A new conversation in the same directory starts from the project's defaults.
        let other = try await f.create()
        #expect(try await status(f, other.id).settings == presets["quick"])
    }

    @Test("controls: starting twice, pausing a stopped loop, resuming a running one are refused; aliases work")
    func controlsAndAliases() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let c = try await f.create()
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/pause").status == 409)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/resume").status == 409)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/stop").status == 409)
        let prompt = model(["hang"])
        let settings = AutoReplySettings(mode: .smartStop, nextPrompt: NextPrompt(strategy: .fixed, text: prompt))
        let body = try String(decoding: WireJSON.encode(AutoResponseStartRequest(sessionId: c.id, settings: settings)), as: UTF8.self)
        let started = try await f.request(.POST, "/api/chat/auto-response/start", body)
        #expect(started.status == 200, "\(started.text)")
        let twice = try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/start")
        #expect(twice.status == 409)
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/resume").status == 409)
        let progress = try await f.request(.GET, "/api/chat/\(c.id)/progress")
        let object = try #require(progress.object as? [String: Any])
        #expect(object["autoResponseActive"] as? Bool == true)
        #expect(object["isPaused"] as? Bool == false)
        #expect(object["mode"] as? String == "smart_stop")
        #expect(object["maxIterations"] as? Int == settings.maxIterations)
        #expect(try await f.request(.POST, "/api/chat/auto-response/pause", #"{"sessionId":"\#(c.id)"}"#).status == 200)
        #expect(try await status(f, c.id).progress.state == .paused)
        #expect(try await f.request(.POST, "/api/chat/auto-response/stop", #"{"sessionId":"\#(c.id)"}"#).status == 200)
        let stopped = try await status(f, c.id).progress
        #expect(stopped.state == .stopped && stopped.stopReason == .manual)
        #expect(try await f.request(.POST, "/api/chat/auto-response/start", #"{"sessionId":"c_nope"}"#).status == 404)
    }

    @Test("a judge decides completion and writes the next prompt; a judge that fails leaves the decision to the rules")
    func judge() async throws {
        try await FakeLLMServer.run { llm in
            let f = try await ChatFixture.start()
            defer { Task { await f.stop() } }
            // The judge says "continue" with its own next prompt, which the loop sends; then it says "complete".
            let c = try await f.create()
            let stream = try await f.events(c.id)
            let first = model(["say Working on it. JUDGE:continue"])
            var settings = AutoReplySettings(mode: .smartStop, minConfidence: 0.9, nextPrompt: NextPrompt(strategy: .judge, text: first))
            settings.judge = JudgeSettings(baseUrl: llm.baseURL, model: "judge-model", timeoutSecs: 10)
            let body = try String(decoding: WireJSON.encode(settings), as: UTF8.self)
            #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/start", body).status == 200)
            try await eventually(30, "the judge's prompt to be sent") { try await userLines(f, c.id).contains("Now write the tests.") }
            // The model echoes the judge's prompt; the judge gives 0.5 for it: below 0.9, so the loop goes on.
            let progress = try await status(f, c.id).progress
            #expect(progress.state == .running || progress.messages >= 2)
            _ = stream
            #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/stop").status == 200)

            // A judge that answers nonsense: the rules decide (an explicit TASK COMPLETE stops the loop).
            let d = try await f.create()
            let done = model(["say JUDGE:garbage All done. TASK COMPLETE"])
            var fallback = AutoReplySettings(mode: .smartStop, nextPrompt: NextPrompt(strategy: .fixed, text: done))
            fallback.judge = JudgeSettings(baseUrl: llm.baseURL, model: "judge-model", timeoutSecs: 10)
            let body2 = try String(decoding: WireJSON.encode(fallback), as: UTF8.self)
            #expect(try await f.request(.POST, "/api/conversations/\(d.id)/auto-reply/start", body2).status == 200)
            try await eventually(30, "the rules to stop the loop") {
                let p = try await status(f, d.id).progress
                return p.state == .stopped && p.stopReason == .completion
            }
        }
    }

    @Test("a loop whose agent cannot start stops with an error instead of waiting forever")
    func agentCannotStart() async throws {
        // A conversation made while the CLI was there, whose CLI is gone after a restart.
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let c = try await f.create()
        await f.server.stop()
        let server = try await f.restarted { $0.claudeCommand = "/nonexistent/claude" }
        defer { Task { await server.stop() } }
        #expect(try await f.request(.POST, "/api/conversations/\(c.id)/auto-reply/start", base: server.base).status == 200)
        try await eventually(10, "the loop to stop") {
            let p = try await status(f, c.id, base: server.base).progress
            return p.state == .stopped && p.stopReason == .error
        }
    }
}
