import Foundation
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// ralph 2.10's control at the iteration boundary, as the reference describes it:
///
/// - `.ralph/stop-requested` (written by `ralph loops stop` or a companion) is consumed and the loop ends with its own
///   `loop.terminate`. The reference names no reason for it; the double uses `stopped` (exit 1), the documented reason
///   closest to "a stop was requested", also while suspended.
/// - A lifecycle hook's suspension (`suspend_at`): `.ralph/suspend-state.json` written atomically, then a wait for the
///   single-use `.ralph/resume-requested`, which is consumed and clears the suspend state.
/// - The cancellation promise (`event_loop.cancellation_promise: loop.cancel`): that topic in the events file ends the
///   loop gracefully with reason `cancelled`, exit 0.
/// - A worktree loop whose worktree directory disappeared ends with `workspace_gone`, exit 1.
extension FakeLoop {
    static let stopped = Ending(reason: "stopped", status: "Stopped by request.", exitCode: 1)
    static let cancelled = Ending(reason: "cancelled", status: "Cancelled by the cancellation promise.", exitCode: 0)
    static let workspaceGone = Ending(reason: "workspace_gone", status: "The loop's workspace no longer exists.", exitCode: 1)

    /// The boundary checks, in ralph's order: the workspace, a stop, the cancellation promise, then a hook suspension
    /// due before this iteration. Nil: go on.
    func controlAtBoundary() throws -> Ending? {
        if isWorktree, !FileManager.default.fileExists(atPath: workspace) { endWithoutWorkspace() }
        if consumeStopRequest() { return Self.stopped }
        if cancellationPromised() { return Self.cancelled }
        let next = iteration + 1
        if Int(behaviour.number("suspend_at", 0)) == next { return try suspend(before: next) }
        return nil
    }

    /// Removes `.ralph/stop-requested` if it is there; true when it was.
    func consumeStopRequest() -> Bool {
        unlink(layout.stopRequested) == 0
    }

    /// Whether the configured cancellation topic (`event_loop.cancellation_promise`) was emitted since the start.
    func cancellationPromised() -> Bool {
        guard let topic = behaviour.section("event_loop")?["cancellation_promise"] as? String, !topic.isEmpty else { return false }
        return writer.lines(after: 0).lines.contains { $0.topic == topic }
    }

    /// Suspends like a hook with `on_error: suspend` (`suspend_hook`, `suspend_mode`; phase `pre.iteration.start`):
    /// writes the suspend state, waits for a resume (or a stop, or a signal), then clears it.
    func suspend(before iteration: Int) throws -> Ending? {
        let state: [String: Any] = [
            "schema_version": 1, "state": "suspended", "loop_id": loopID, "phase_event": "pre.iteration.start",
            "hook_name": behaviour.string("suspend_hook") ?? "ci-gate", "reason": behaviour.string("suspend_reason") ?? "hook exited 2",
            "suspend_mode": behaviour.string("suspend_mode") ?? "wait_for_resume", "suspended_at": Timestamp.now(),
        ]
        let data = try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys])
        // Atomically: a temp file and a rename, as ralph's suspend_state.rs does.
        try data.write(to: URL(fileURLWithPath: layout.suspendState), options: .atomic)
        FileHandle.standardError.write(Data("[suspended before iteration \(iteration)] waiting for .ralph/resume-requested\n".utf8))
        defer { unlink(layout.suspendState) }
        while true {
            guard sleepChecking(0.05) else { return Self.interrupted }
            if isWorktree, !FileManager.default.fileExists(atPath: workspace) { endWithoutWorkspace() }
            if consumeStopRequest() { return Self.stopped }
            if unlink(layout.resumeRequested) == 0 { return nil }
        }
    }

    /// Runs a write of the loop; when it fails because the worktree was removed under the loop, the loop ends with
    /// `workspace_gone` instead of an I/O error.
    func whileWorkspaceExists(_ write: () throws -> Void) throws {
        do {
            try write()
        } catch {
            if isWorktree, !FileManager.default.fileExists(atPath: workspace) { endWithoutWorkspace() }
            throw error
        }
    }

    /// The worktree is gone, and the events file with it: ralph cannot write `loop.terminate` there. It says so and
    /// exits 1 (`workspace_gone`).
    func endWithoutWorkspace() -> Never {
        writer.releaseLock()
        FileHandle.standardError.write(Data("Error: workspace \(workspace) no longer exists (workspace_gone)\n".utf8))
        print("ralph: workspace_gone after \(iteration) iterations")
        exit(Self.workspaceGone.exitCode)
    }
}
