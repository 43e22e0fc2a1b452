import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// Stops, hook suspensions and resumes as the SDK and the terminal client show them, against the real server running
/// the fake-ralph double.
@Suite("Graceful stop and hook suspension in the SDK and the terminal client")
struct ControlClientTests {
    static let ts = "2026-02-05T08:09:13.890Z"

    static func session(mode: SessionMode, stop: StopRequest? = nil, suspension: Suspension? = nil, pausedBy: String? = nil) -> Session {
        Session(
            id: "3fa2c9017d1e4b8a", iteration: 2, total: nil, hat: nil, elapsedSecs: 1, mode: mode, status: .running, startedAt: ts, lastEventAt: nil,
            eventCount: 3, taskName: nil, workspace: ".", path: "", pid: 1, stopRequested: stop, suspension: suspension, pausedBy: pausedBy
        )
    }

    @Test("the words: graceful first, then forced; a hook's suspension is not our pause")
    func words() {
        let graceful = StopRequest(kind: StopRequest.graceful, at: Self.ts)
        #expect(ControlWords.stopButton(Self.session(mode: .live)) == "Stop at end of iteration")
        #expect(ControlWords.stopButton(Self.session(mode: .live, stop: graceful)) == "Force stop")
        #expect(ControlWords.stop(Self.session(mode: .live, stop: graceful)) == "stopping at the end of this iteration")
        #expect(ControlWords.stop(Self.session(mode: .complete, stop: graceful)) == "stopped at the end of an iteration (graceful stop)")
        #expect(ControlWords.stop(Self.session(mode: .complete, stop: StopRequest(kind: StopRequest.forced, at: Self.ts))) == "force-stopped")
        #expect(!ControlWords.nextStopForces(Self.session(mode: .complete, stop: graceful)))
        let hook = Suspension(hookName: "ci-gate", phase: "pre.iteration.start", reason: "tests failed", suspendMode: "wait_for_resume", since: Self.ts)
        #expect(ControlWords.hold(Self.session(mode: .suspended, suspension: hook)) == "Suspended by hook ci-gate: tests failed")
        #expect(ControlWords.hold(Self.session(mode: .paused, suspension: hook, pausedBy: Session.pausedByServer)) == "Paused by the server (SIGSTOP)")
        #expect(ControlWords.stopAnswer(StopSessionResponse(status: "stopping", signal: nil, pid: 7, terminated: false, kind: "graceful")) == "stopping at the end of this iteration")
        #expect(ControlWords.stopAnswer(StopSessionResponse(status: "stopped", signal: "SIGTERM", pid: 7, terminated: true)) == "stopped (pid 7, SIGTERM, ralph recorded its termination)")
    }

    @Test("ralph-mobile: status shows the suspension, resume asks the loop to go on, stop waits for the iteration, --force signals")
    func terminal() async throws {
        let h = try await KitHarness.start()
        let config = h.tmp.subdirectory("cli")
        let server = ["--server", h.server.base]
        let id = try await h.startFakeRalph("iterations: 500\npace: 0.1\nsuspend_at: 2\nsuspend_hook: ci-gate\nsuspend_reason: tests failed")
        let client = h.client
        try await eventually(10, "the loop to be suspended") { try await client.status(id).mode == .suspended }

        let status = try await TerminalClientTests.cli(["status", id] + server, config: config)
        #expect(status.stdout.contains("suspended") && status.stdout.contains("Suspended by hook ci-gate: tests failed"), "\(status.stdout)")
        let resumed = try await TerminalClientTests.cli(["resume", id] + server, config: config)
        #expect(resumed.status == 0 && resumed.stdout.contains("resume requested"), "\(resumed.stdout)\(resumed.stderr)")
        try await eventually(10, "the loop to go on") { try await client.status(id).mode == .live }

        let stop = try await TerminalClientTests.cli(["stop", id, "--yes"] + server, config: config)
        #expect(stop.status == 0 && stop.stdout.contains("stopping at the end of this iteration"), "\(stop.stdout)\(stop.stderr)")
        try await eventually(10, "the run to end at its boundary") { try await client.status(id).mode == .complete }
        let ended = try await TerminalClientTests.cli(["status", id] + server, config: config)
        #expect(ended.stdout.contains("graceful stop") && ended.stdout.contains("stopped"), "\(ended.stdout)")

        let second = try await h.startFakeRalph("iterations: 500\npace: 60", project: "other")
        let forced = try await TerminalClientTests.cli(["stop", second, "--yes", "--force"] + server, config: config)
        #expect(forced.status == 0 && forced.stdout.contains("stopped (pid") && forced.stdout.contains("SIGTERM"), "\(forced.stdout)\(forced.stderr)")
        #expect(try await client.detail(second).session.stopRequested?.kind == "forced")
        await h.stop()
    }
}
