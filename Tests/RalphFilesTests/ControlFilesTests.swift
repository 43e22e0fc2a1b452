import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("ralph 2.10 control files and endings")
struct ControlFilesTests {
    @Test("termination reasons of 2.10: cancelled is a stop; loop_stale and workspace_gone are failures")
    func newReasons() {
        #expect(LoopTerminate.status(forReason: "cancelled") == .stopped)
        #expect(LoopTerminate.status(forReason: "loop_stale") == .failed)
        #expect(LoopTerminate.status(forReason: "workspace_gone") == .failed)
        #expect(LoopTerminate.status(forReason: "stopped") == .stopped)
        let parsed = LoopTerminate.parse("## Reason\ncancelled\n\n## Status\nCancelled.\n\n## Summary\n- Iterations: 2\n- Exit code: 0", at: nil)
        #expect(parsed.reason == "cancelled" && parsed.exitCode == 0)
    }

    @Test("suspend-state.json: schema 1 'suspended' is a suspension; anything else is not")
    func suspendState() {
        let text = #"{"schema_version":1,"state":"suspended","loop_id":"primary-20260620-095959","phase_event":"pre.iteration.start","hook_name":"ci-gate","reason":"hook exited 2","suspend_mode":"retry_backoff","suspended_at":"2026-06-20T10:00:00Z"}"#
        let parsed = SuspendState.parse(Array(text.utf8))
        #expect(parsed == Suspension(
            hookName: "ci-gate", phase: "pre.iteration.start", reason: "hook exited 2", suspendMode: "retry_backoff", since: "2026-06-20T10:00:00.000Z",
            loopId: "primary-20260620-095959"
        ))
        #expect(SuspendState.parse(Array(text.replacingOccurrences(of: #""schema_version":1"#, with: #""schema_version":2"#).utf8)) == nil)
        #expect(SuspendState.parse(Array(text.replacingOccurrences(of: #""suspended","loop_id""#, with: #""resumed","loop_id""#).utf8)) == nil)
        #expect(SuspendState.parse(Array("{\"schema_version\":1".utf8)) == nil, "half a file is no suspension")
    }

    @Test("the probe reads a pending stop and a suspension from the state directory")
    func probe() throws {
        let tmp = TempDir()
        let state = tmp.dir(".ralph")
        var liveness = LivenessProbe.probe(workspace: tmp.path, stateDirectory: state, layout: .ralph, locks: nil)
        #expect(liveness.stopRequestedAt == nil && liveness.suspension == nil)
        tmp.file(".ralph/stop-requested")
        tmp.file(".ralph/suspend-state.json", #"{"schema_version":1,"state":"suspended","phase_event":"pre.loop.start","hook_name":"gate","suspend_mode":"wait_for_resume"}"#)
        liveness = LivenessProbe.probe(workspace: tmp.path, stateDirectory: state, layout: .ralph, locks: nil)
        #expect(liveness.stopRequestedAt != nil && liveness.suspension?.hookName == "gate" && liveness.suspension?.reason == nil)
        #expect(RalphLayout(workspace: tmp.path).stopRequested == state + "/stop-requested")
        #expect(RalphLayout(workspace: tmp.path + "/.worktrees/w").resumeRequested == tmp.path + "/.worktrees/w/.ralph/resume-requested")
    }
}
