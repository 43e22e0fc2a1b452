import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// The auto-reply loop as a value: each mode and limit, driven by made-up replies and a test clock.
@Suite("Auto-reply machine")
struct AutoReplyMachineTests: AutoReplyMachineSuite {
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
}
