import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// The auto-reply loop as a value: each mode, limit, pause and refusal, driven by made-up replies and a test clock.
@Suite("Auto-reply machine")
struct AutoReplyMachineTests {
    typealias Machine = AutoReplyMachine
    typealias Action = AutoReplyMachine.Action

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }
    static let judge = JudgeSettings(baseUrl: "http://127.0.0.1:11434/v1", model: "judge")

    /// Distinct replies that match no completion, showstopper or stuck rule.
    static func work(_ i: Int) -> String { "Step \(i): changed module\(i) and ran build number \(i * 7)." }

    static func sends(_ actions: [Action]) -> [String] { actions.compactMap { if case .send(let p) = $0 { p } else { nil } } }
    static func notices(_ actions: [Action]) -> [AutoReplyProgress] { actions.compactMap { if case .notice(let p) = $0 { p } else { nil } } }
    static func judges(_ actions: [Action]) -> [String] { actions.compactMap { if case .judge(let r) = $0 { r } else { nil } } }
    static func lastProgress(_ actions: [Action]) -> AutoReplyProgress? {
        actions.compactMap { if case .progress(let p) = $0 { p } else { nil } }.last
    }

    /// A running machine; the first prompt sent when the conversation was idle.
    static func started(_ settings: AutoReplySettings, at now: Date = t0) throws -> (Machine, [Action]) {
        var m = Machine(conversationID: "c1", settings: settings)
        let actions = try m.handle(.start(now: now, conversationIdle: true))
        return (m, actions)
    }

    static func end(_ m: inout Machine, _ reply: String, at now: Date, failed: Bool = false, error: String? = nil) throws -> [Action] {
        try m.handle(.turnEnded(reply: reply, failed: failed, error: error, now: now))
    }

    static func refusal(_ m: inout Machine, _ input: Machine.Input) -> Machine.Refusal? {
        do {
            _ = try m.handle(input)
            return nil
        } catch { return error }
    }

    // MARK: - Modes

    @Test("smart_stop: continues below min_confidence, stops at or above it")
    func smartStop() throws {
        let (start, first) = try Self.started(AutoReplySettings(mode: .smartStop, minConfidence: 0.8))
        var m = start
        #expect(Self.sends(first) == [NextPrompt.defaultText])
        #expect(m.messages == 1 && m.state == .running)

        var actions = try Self.end(&m, "I finished the model; the view is next.", at: Self.at(minutes: 1))  // 0.6
        #expect(Self.sends(actions).count == 1)
        #expect(m.confidence == 0.6 && m.state == .running)

        actions = try Self.end(&m, "Ran the suite: all 42 tests passed.", at: Self.at(minutes: 2))  // 0.8
        #expect(Self.sends(actions).isEmpty)
        #expect(m.state == .stopped && m.stopReason == .completion)
        let notice = try #require(Self.notices(actions).first)
        #expect(notice.stopReason == .completion && notice.confidence == 0.8 && notice.messages == 2 && notice.iterations == 2)
        #expect(notice.detail?.contains("tests_pass") == true)
    }

    @Test("until_completion: ignores \"looks good\" and done statements, stops on LOOP_COMPLETE")
    func untilCompletion() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .untilCompletion, minConfidence: 0.3))
        #expect(Self.sends(try Self.end(&m, "The layout looks good now.", at: Self.at(minutes: 1))).count == 1)
        #expect(Self.sends(try Self.end(&m, "Everything is done, I think.", at: Self.at(minutes: 2))).count == 1)
        #expect(m.state == .running)
        let actions = try Self.end(&m, "Verified all stories.\nLOOP_COMPLETE", at: Self.at(minutes: 3))
        #expect(m.state == .stopped && m.stopReason == .completion && m.confidence == 1)
        #expect(Self.notices(actions).count == 1 && Self.sends(actions).isEmpty)
    }

    @Test("time_based: keeps going before the deadline, stops at the first turn end after it")
    func timeBased() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .timeBased, maxMinutes: 10))
        for (i, minute) in [3.0, 6.0, 9.5].enumerated() {
            let actions = try Self.end(&m, i == 1 ? "Finished the importer, it should work." : Self.work(i), at: Self.at(minutes: minute))
            #expect(Self.sends(actions).count == 1, "minute \(minute)")
        }
        #expect(m.progress(now: Self.at(minutes: 9.5)).elapsedSecs == 570)
        let actions = try Self.end(&m, Self.work(9), at: Self.at(minutes: 10.5))
        #expect(m.state == .stopped && m.stopReason == .timeLimit)
        #expect(Self.notices(actions).first?.stopReason == .timeLimit)
        // Elapsed is frozen at the stop.
        #expect(m.progress(now: Self.at(minutes: 60)).elapsedSecs == 630)
    }

    @Test("message_based: sends exactly max_messages prompts, then stops with message_limit")
    func messageBased() throws {
        let (start, first) = try Self.started(AutoReplySettings(mode: .messageBased, maxIterations: 50, maxMessages: 3))
        var m = start
        var sent = Self.sends(first)
        var minute = 1.0
        while m.state == .running {
            // "finished" (0.6) is not an explicit signal: it does not stop a message_based loop.
            sent += Self.sends(try Self.end(&m, minute == 1 ? "I finished part one." : Self.work(Int(minute)), at: Self.at(minutes: minute)))
            minute += 1
        }
        #expect(sent.count == 3 && m.messages == 3 && m.iterations == 3)
        #expect(m.stopReason == .messageLimit)
        #expect(m.progress(now: Self.at(minutes: minute)).maxMessages == 3)
    }

    @Test("hybrid: the message limit met before the time limit")
    func hybridMessagesFirst() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .hybrid, maxMinutes: 60, maxMessages: 2, minConfidence: 0.9))
        #expect(Self.sends(try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))).count == 1)
        _ = try Self.end(&m, Self.work(2), at: Self.at(minutes: 2))
        #expect(m.state == .stopped && m.stopReason == .messageLimit && m.messages == 2)
    }

    @Test("hybrid: the time limit met before the message limit")
    func hybridTimeFirst() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .hybrid, maxMinutes: 5, maxMessages: 50, minConfidence: 0.9))
        #expect(Self.sends(try Self.end(&m, Self.work(1), at: Self.at(minutes: 2))).count == 1)
        _ = try Self.end(&m, Self.work(2), at: Self.at(minutes: 6))
        #expect(m.state == .stopped && m.stopReason == .timeLimit && m.messages == 2)
    }

    @Test("hybrid: completion by confidence before any limit")
    func hybridCompletion() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .hybrid, maxMinutes: 60, maxMessages: 50, minConfidence: 0.8))
        _ = try Self.end(&m, "The implementation is complete.", at: Self.at(minutes: 1))
        #expect(m.stopReason == .completion)
    }

    // MARK: - Limits, errors, showstoppers, stuck

    @Test("max_iterations stops every mode")
    func iterationLimit() throws {
        let (start, first) = try Self.started(AutoReplySettings(mode: .untilCompletion, maxIterations: 3))
        var m = start
        var sent = Self.sends(first).count
        for i in 1...3 { sent += Self.sends(try Self.end(&m, Self.work(i), at: Self.at(minutes: Double(i)))).count }
        #expect(m.state == .stopped && m.stopReason == .iterationLimit && m.iterations == 3 && sent == 3)
    }

    @Test("stop_on_error stops on a failed turn; without it the loop goes on")
    func stopOnError() throws {
        var (m, _) = try Self.started(AutoReplySettings(stopOnError: true))
        let actions = try Self.end(&m, "", at: Self.at(minutes: 1), failed: true, error: "the agent exited with status 1")
        #expect(m.state == .stopped && m.stopReason == .error)
        #expect(Self.notices(actions).first?.detail?.contains("status 1") == true)

        var (n, _) = try Self.started(AutoReplySettings(stopOnError: false))
        #expect(Self.sends(try Self.end(&n, "Partial output.", at: Self.at(minutes: 1), failed: true, error: "timeout")).count == 1)
        #expect(n.state == .running)
    }

    @Test("A showstopper pauses with a notice; turn ends while paused are not counted; resume continues")
    func showstopper() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .smartStop))
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        let actions = try Self.end(&m, "Should I delete the old migrations?", at: Self.at(minutes: 2))
        #expect(m.state == .paused && m.pauseReason == .showstopper)
        #expect(Self.sends(actions).isEmpty)
        let notice = try #require(Self.notices(actions).first)
        #expect(notice.state == .paused && notice.detail?.contains("destructive") == true)

        #expect(try Self.end(&m, Self.work(3), at: Self.at(minutes: 3)).isEmpty)
        #expect(m.iterations == 2)

        let resumed = try m.handle(.resume(now: Self.at(minutes: 4), conversationIdle: true))
        #expect(Self.sends(resumed) == [NextPrompt.defaultText])
        #expect(m.state == .running && m.pauseReason == nil && m.detail == nil && m.messages == 3 && m.iterations == 2)
        #expect(m.progress(now: Self.at(minutes: 4)).startedAt == Timestamp.format(Self.t0))

        // Showstopper detection off: the same reply is just a reply.
        var (n, _) = try Self.started(AutoReplySettings(showstopperDetection: false))
        _ = try Self.end(&n, "Should I delete the old migrations?", at: Self.at(minutes: 1))
        #expect(n.state == .running)
    }

    @Test("Near-identical replies in a row stop the loop as stuck")
    func stuck() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .untilCompletion))
        let same = "I tried again to make the parser accept trailing commas, but the result is the same."
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        _ = try Self.end(&m, same, at: Self.at(minutes: 2))
        _ = try Self.end(&m, same, at: Self.at(minutes: 3))
        #expect(m.state == .running)
        let actions = try Self.end(&m, same, at: Self.at(minutes: 4))
        #expect(m.state == .stopped && m.stopReason == .stuck && Self.notices(actions).count == 1)
    }

    // MARK: - Approvals, confirmation, override, restart

    @Test("A pending approval pauses; resolving it runs again without a prompt; the turn's end continues the loop")
    func approvals() throws {
        var (m, _) = try Self.started(AutoReplySettings())
        let paused = try m.handle(.approvalPending(now: Self.at(minutes: 1)))
        #expect(m.state == .paused && m.pauseReason == .approval && Self.lastProgress(paused)?.pauseReason == .approval)
        let resolved = try m.handle(.approvalsResolved(now: Self.at(minutes: 2)))
        #expect(m.state == .running && m.pauseReason == nil && Self.sends(resolved).isEmpty)
        #expect(Self.sends(try Self.end(&m, Self.work(1), at: Self.at(minutes: 3))).count == 1)
        // Resolved without a pause for approval: nothing.
        #expect(try m.handle(.approvalsResolved(now: Self.at(minutes: 4))).isEmpty)
    }

    @Test("require_confirmation: each prompt waits as pending_prompt and is sent on resume")
    func requireConfirmation() throws {
        let (start, first) = try Self.started(AutoReplySettings(requireConfirmation: true, nextPrompt: NextPrompt(text: "Go on.")))
        var m = start
        #expect(Self.sends(first).isEmpty)
        #expect(m.state == .paused && m.pauseReason == .confirmation && m.pendingPrompt == "Go on." && m.messages == 0)
        #expect(Self.lastProgress(first)?.pendingPrompt == "Go on.")

        let resumed = try m.handle(.resume(now: Self.at(minutes: 1), conversationIdle: false))
        #expect(Self.sends(resumed) == ["Go on."] && m.pendingPrompt == nil && m.messages == 1 && m.state == .running)

        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 2))
        #expect(m.state == .paused && m.pauseReason == .confirmation && m.pendingPrompt == "Go on.")
    }

    @Test("allow_override false: a person's own message pauses the loop; true: nothing changes")
    func override() throws {
        var (m, _) = try Self.started(AutoReplySettings(allowOverride: false))
        _ = try m.handle(.manualMessage(now: Self.at(minutes: 1)))
        #expect(m.state == .paused && m.pauseReason == .override)

        var (n, _) = try Self.started(AutoReplySettings(allowOverride: true))
        #expect(try n.handle(.manualMessage(now: Self.at(minutes: 1))).isEmpty)
        #expect(n.state == .running)
    }

    @Test("A server restart pauses a running loop with pause_reason restart; resume continues")
    func restart() throws {
        var (m, _) = try Self.started(AutoReplySettings())
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        let actions = try m.handle(.restarted(now: Self.at(minutes: 2)))
        #expect(m.state == .paused && m.pauseReason == .restart && m.detail?.contains("restarted") == true)
        #expect(Self.lastProgress(actions)?.pauseReason == .restart)
        #expect(Self.sends(try m.handle(.resume(now: Self.at(minutes: 3), conversationIdle: true))).count == 1)
        #expect(m.iterations == 1 && m.messages == 3)

        var stopped = Machine(conversationID: "c2", settings: AutoReplySettings())
        #expect(try stopped.handle(.restarted(now: Self.t0)).isEmpty)
    }

    // MARK: - Judge

    @Test("Judge: its confidence decides")
    func judgeConfidence() throws {
        var (m, _) = try Self.started(AutoReplySettings(minConfidence: 0.8, judge: Self.judge))
        let ended = try Self.end(&m, "I wired the view.", at: Self.at(minutes: 1))
        #expect(Self.judges(ended) == ["I wired the view."] && Self.sends(ended).isEmpty && m.isAwaitingJudgement)
        let actions = try m.handle(.judged(confidence: 0.9, nextPrompt: nil, now: Self.at(minutes: 1.1)))
        #expect(m.state == .stopped && m.stopReason == .completion && m.confidence == 0.9)
        #expect(Self.notices(actions).first?.detail?.contains("judge") == true)
    }

    @Test("Judge: a failed judgement (nil) falls back to the rules, also after its timeout on a tick")
    func judgeFallback() throws {
        var (m, _) = try Self.started(AutoReplySettings(minConfidence: 0.8, judge: Self.judge))
        _ = try Self.end(&m, "The page looks good.", at: Self.at(minutes: 1))
        let actions = try m.handle(.judged(confidence: nil, nextPrompt: nil, now: Self.at(minutes: 1.1)))
        #expect(Self.sends(actions) == [NextPrompt.defaultText] && m.confidence == 0.4 && m.state == .running)
        // An answer nobody waits for is ignored.
        #expect(try m.handle(.judged(confidence: 1, nextPrompt: nil, now: Self.at(minutes: 1.2))).isEmpty)

        _ = try Self.end(&m, "TASK COMPLETE", at: Self.at(minutes: 2))
        #expect(try m.handle(.tick(now: Self.at(minutes: 2).addingTimeInterval(10))).isEmpty)
        _ = try m.handle(.tick(now: Self.at(minutes: 2).addingTimeInterval(20)))
        #expect(m.state == .stopped && m.stopReason == .completion && m.confidence == 0.95)
    }

    @Test("Judge: with strategy judge its next prompt is sent; a blank one falls back to the fixed prompt")
    func judgePrompt() throws {
        let settings = AutoReplySettings(minConfidence: 0.8, nextPrompt: NextPrompt(strategy: .judge, text: "Keep going."), judge: Self.judge)
        let (start, first) = try Self.started(settings)
        var m = start
        #expect(Self.sends(first) == ["Keep going."])
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        #expect(Self.sends(try m.handle(.judged(confidence: 0.2, nextPrompt: "Now add tests for the parser.", now: Self.at(minutes: 1)))) == [
            "Now add tests for the parser."
        ])
        _ = try Self.end(&m, Self.work(2), at: Self.at(minutes: 2))
        #expect(Self.sends(try m.handle(.judged(confidence: 0.2, nextPrompt: "  ", now: Self.at(minutes: 2)))) == ["Keep going."])
    }

    @Test("Judge: until_completion accepts a judge confidence of 0.95")
    func judgeUntilCompletion() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .untilCompletion, judge: Self.judge))
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        _ = try m.handle(.judged(confidence: 0.9, nextPrompt: nil, now: Self.at(minutes: 1)))
        #expect(m.state == .running)
        _ = try Self.end(&m, Self.work(2), at: Self.at(minutes: 2))
        _ = try m.handle(.judged(confidence: 0.95, nextPrompt: nil, now: Self.at(minutes: 2)))
        #expect(m.stopReason == .completion)
    }

    @Test("A restart forgets a pending judgement")
    func restartForgetsJudgement() throws {
        var (m, _) = try Self.started(AutoReplySettings(judge: Self.judge))
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        _ = try m.handle(.restarted(now: Self.at(minutes: 2)))
        #expect(!m.isAwaitingJudgement && m.pauseReason == .restart)
        #expect(try m.handle(.judged(confidence: 1, nextPrompt: nil, now: Self.at(minutes: 3))).isEmpty)
    }

    // MARK: - Controls and refusals

    @Test("Refusals: start twice or while paused, stop a stopped loop, pause a stopped one, resume a running one")
    func refusals() throws {
        var m = Machine(conversationID: "c1", settings: AutoReplySettings(mode: .smartStop))
        #expect(Self.refusal(&m, .stop(now: Self.t0)) == .alreadyStopped)
        #expect(Self.refusal(&m, .pause(now: Self.t0)) == .notRunning)
        #expect(Self.refusal(&m, .resume(now: Self.t0, conversationIdle: true)) == .notPaused)
        #expect(Self.refusal(&m, .start(now: Self.t0, conversationIdle: false)) == nil)
        #expect(Self.refusal(&m, .start(now: Self.t0, conversationIdle: true)) == .alreadyRunning)
        #expect(Self.refusal(&m, .resume(now: Self.t0, conversationIdle: true)) == .notPaused)
        #expect(Self.refusal(&m, .pause(now: Self.at(minutes: 1))) == nil)
        #expect(m.pauseReason == .manual)
        #expect(Self.refusal(&m, .pause(now: Self.at(minutes: 1))) == .notRunning)
        #expect(Self.refusal(&m, .start(now: Self.t0, conversationIdle: true)) == .alreadyRunning)
        #expect(Self.refusal(&m, .stop(now: Self.at(minutes: 2))) == nil)
        #expect(m.state == .stopped && m.stopReason == .manual)
        #expect(Self.refusal(&m, .stop(now: Self.at(minutes: 3))) == .alreadyStopped)
        #expect(Self.refusal(&m, .pause(now: Self.at(minutes: 3))) == .notRunning)
    }

    @Test(
        "Refusals: invalid settings at start and on update",
        arguments: [
            AutoReplySettings(mode: .timeBased, maxMinutes: 0),
            AutoReplySettings(minConfidence: 1.5),
            AutoReplySettings(mode: .timeBased),
            AutoReplySettings(mode: .messageBased, maxMessages: 101),
        ]
    )
    func invalidSettings(settings: AutoReplySettings) {
        var m = Machine(conversationID: "c1", settings: settings)
        #expect(Self.refusal(&m, .start(now: Self.t0, conversationIdle: true)) == .invalidSettings(settings.problems))
        #expect(m.state == .stopped)
        var n = Machine(conversationID: "c1", settings: AutoReplySettings())
        #expect(Self.refusal(&n, .updateSettings(settings, now: Self.t0)) == .invalidSettings(settings.problems))
        #expect(n.settings == AutoReplySettings())
    }

    @Test("Refusals: a disabled loop does not start; disabling a running loop stops it")
    func disabled() throws {
        var m = Machine(conversationID: "c1", settings: AutoReplySettings(enabled: false))
        #expect(Self.refusal(&m, .start(now: Self.t0, conversationIdle: true)) == .disabled)
        #expect(Machine.Refusal.disabled.description.contains("disabled"))

        var (n, _) = try Self.started(AutoReplySettings())
        _ = try n.handle(.updateSettings(AutoReplySettings(enabled: false), now: Self.at(minutes: 1)))
        #expect(n.state == .stopped && n.stopReason == .manual)
    }

    @Test("Updated settings apply to a running loop from its next turn end")
    func updateSettings() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .untilCompletion, maxIterations: 50))
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        let actions = try m.handle(.updateSettings(AutoReplySettings(mode: .messageBased, maxIterations: 50, maxMessages: 2), now: Self.at(minutes: 2)))
        #expect(Self.lastProgress(actions)?.mode == .messageBased && m.state == .running)
        _ = try Self.end(&m, Self.work(2), at: Self.at(minutes: 3))
        #expect(m.stopReason == .messageLimit)
    }

    @Test("Starting again resets the counters and the reasons")
    func restartResets() throws {
        var (m, _) = try Self.started(AutoReplySettings(mode: .messageBased, maxMessages: 1))
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 1))
        #expect(m.stopReason == .messageLimit)
        let actions = try m.handle(.start(now: Self.at(minutes: 5), conversationIdle: false))
        #expect(Self.sends(actions).isEmpty)
        let p = m.progress(now: Self.at(minutes: 6))
        #expect(p.state == .running && p.iterations == 0 && p.messages == 0 && p.stopReason == nil && p.confidence == nil && p.elapsedSecs == 60)
        #expect(m.recentReplies.isEmpty)
    }

    // MARK: - Persistence

    @Test("Codable round trip preserves everything; keys are snake_case, dates Unix seconds")
    func codable() throws {
        let settings = AutoReplySettings(mode: .hybrid, maxMinutes: 30, maxMessages: 10, requireConfirmation: true, judge: Self.judge)
        var (m, _) = try Self.started(settings, at: Self.t0.addingTimeInterval(0.25))
        _ = try m.handle(.resume(now: Self.at(minutes: 1), conversationIdle: true))
        _ = try Self.end(&m, Self.work(1), at: Self.at(minutes: 2))
        #expect(m.isAwaitingJudgement)
        let data = try WireJSON.encode(m)
        let decoded = try WireJSON.decode(Machine.self, from: data)
        #expect(decoded == m)
        #expect(decoded.progress(now: Self.at(minutes: 3)) == m.progress(now: Self.at(minutes: 3)))

        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["conversation_id"] as? String == "c1")
        #expect(object["started_at"] as? Double == 1_800_000_000.25)
        #expect(object["recent_replies"] as? [String] == [Self.work(1)])
        #expect(object["judging_reply"] as? String == Self.work(1))
        #expect(object["version"] as? Int == 1)
        #expect((object["settings"] as? [String: Any])?["max_minutes"] as? Int == 30)

        // A stopped, paused-with-pending and fresh machine too.
        var paused = decoded
        _ = try paused.handle(.judged(confidence: 0.1, nextPrompt: nil, now: Self.at(minutes: 3)))
        #expect(paused.pendingPrompt != nil)
        var stopped = paused
        _ = try stopped.handle(.stop(now: Self.at(minutes: 4)))
        for machine in [paused, stopped, Machine(conversationID: "c9", settings: AutoReplySettings())] {
            #expect(try WireJSON.decode(Machine.self, from: WireJSON.encode(machine)) == machine)
        }
    }
}
