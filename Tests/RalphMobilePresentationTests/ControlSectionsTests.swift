import Foundation
import RalphAPI
import Testing

@testable import RalphMobilePresentation

/// The app's models for stops, hook suspensions and the server's pause (values only; the flows against fake-ralph are
/// in RunsControlsTests).
@Suite("Runs: graceful stop and hook suspension in the screens' models")
struct ControlSectionsTests {
    static let at = "2026-02-05T08:09:13.890Z"
    static let hook = Suspension(hookName: "ci-gate", phase: "pre.iteration.start", reason: "tests failed", suspendMode: "wait_for_resume", since: at)

    static func session(_ mode: SessionMode, stop: StopRequest? = nil, suspension: Suspension? = nil, pausedBy: String? = nil) -> Session {
        var session = SessionsFixtures.liveSession
        session.mode = mode
        session.stopRequested = stop
        session.suspension = suspension
        session.pausedBy = pausedBy
        return session
    }

    @Test("a suspended run: Resume for operators, no Pause, the hold in words; stop stays an admin's")
    func suspended() {
        let section = ModeControlSection(session: Self.session(.suspended, suspension: Self.hook), capabilities: Capabilities(role: .operator))
        #expect(section.showsResume && !section.showsPause && !section.showsStop && section.stopNote == "Stopping a run needs an admin key.")
        #expect(section.holdLine == "Suspended by hook ci-gate: tests failed" && section.mode == SessionBadge.mode(.suspended))
        #expect(section.note.contains("lifecycle hook"))
        let row = SessionRow(Self.session(.suspended, suspension: Self.hook))
        #expect(row.isActive && row.controlText == "Suspended by hook ci-gate: tests failed")
        #expect(row.accessibilityLabel.contains("Suspended by hook ci-gate"))
        #expect(SessionsFilter.live.includes(Self.session(.suspended, suspension: Self.hook)))
    }

    @Test("our pause is labelled as the server's, never as a hook's")
    func pausedByServer() {
        let section = ModeControlSection(session: Self.session(.paused, suspension: Self.hook, pausedBy: "server"), capabilities: Capabilities(role: .admin))
        #expect(section.holdLine == "Paused by the server (SIGSTOP)" && section.showsResume && section.note.hasPrefix("Paused by the server"))
    }

    @Test("the stop button: at the end of the iteration first, then forced; after the end, which stop it was")
    func stopLabels() {
        let admin = Capabilities(role: .admin)
        let live = ModeControlSection(session: Self.session(.live), capabilities: admin)
        #expect(live.stopLabel == "Stop at end of iteration" && !live.stopForces && live.stopLine == nil)
        let graceful = StopRequest(kind: StopRequest.graceful, at: Self.at)
        let pending = ModeControlSection(session: Self.session(.live, stop: graceful), capabilities: admin)
        #expect(pending.stopLabel == "Force stop" && pending.stopForces && pending.stopLine == "stopping at the end of this iteration")
        #expect(SessionRow(Self.session(.live, stop: graceful)).controlText == "stopping at the end of this iteration")
        let ended = ModeControlSection(session: Self.session(.complete, stop: graceful), capabilities: admin)
        #expect(!ended.showsStop && ended.stopLine == "stopped at the end of an iteration (graceful stop)")
    }
}
