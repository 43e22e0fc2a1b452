import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// The auto-reply loop's controls: what it refuses, settings changed while it runs, and its stored form.
@Suite("Auto-reply machine: controls and persistence")
struct AutoReplyMachineControlTests: AutoReplyMachineSuite {
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
