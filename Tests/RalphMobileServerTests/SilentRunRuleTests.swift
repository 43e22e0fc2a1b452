import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

@Suite("Run notifications: a run held by a hook is not silent")
struct SilentRunRuleTests {
    static func liveSnapshot(suspended: Bool) -> RunSnapshot {
        let file = "/w/.ralph/events-20260205-080913.jsonl"
        var snapshot = RunSnapshot(location: RunLocation(file: file, stateDirectory: "/w/.ralph", workspace: "/w", root: "/w", layout: .ralph))
        snapshot.liveness.currentRunFile = file
        snapshot.liveness.lockHeld = true
        if suspended {
            snapshot.liveness.suspension = Suspension(hookName: "ci-gate", phase: "pre.iteration.start", reason: nil, suspendMode: "wait_for_resume", since: nil)
        }
        return snapshot
    }

    @Test("a live run without events is reported silent; the same run suspended by a hook is not")
    func suspendedIsNotSilent() {
        let start = Date()
        for suspended in [false, true] {
            var rules = RunNotificationRules()
            let snapshot = Self.liveSnapshot(suspended: suspended)
            #expect(snapshot.isLive && snapshot.isSuspended == suspended)
            _ = rules.events(for: .added(snapshot), now: start)
            let silent = rules.silentRuns([snapshot], threshold: 60, paused: { _ in false }, now: start.addingTimeInterval(120))
            #expect(silent.count == (suspended ? 0 : 1))
        }
    }
}
