import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// The auto-reply loop with a judge model deciding when the work is done and what to say next.
@Suite("Auto-reply machine: judge")
struct AutoReplyMachineJudgeTests: AutoReplyMachineSuite {
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
}
