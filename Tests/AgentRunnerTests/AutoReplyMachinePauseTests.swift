import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// The auto-reply loop waiting on people: approvals, confirmation, a person's own message, a server restart.
@Suite("Auto-reply machine: pauses")
struct AutoReplyMachinePauseTests: AutoReplyMachineSuite {
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
}
