import Foundation
import RalphFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stopping a run: SIGTERM, a grace period, SIGKILL — waiting for the process to end, not polling for it.
extension RunSupervisor {
    /// Stops a run: SIGTERM to its process group, up to ``Configuration/stopGrace`` for ralph to write
    /// `loop.terminate` and exit, then SIGKILL. A second stop of the same run joins the first.
    public func stop(sessionID: String) async throws -> StopOutcome {
        let task = try state.withLock { s throws(ControlError) -> Task<StopOutcome, any Error> in
            if let running = s.stopping[sessionID] { return running }
            let target = try stopTarget(sessionID: sessionID, state: s)
            // Owned by `stopping` while it runs; every caller awaits it, and it ends within the grace periods.
            let task = Task { try await self.performStop(sessionID: sessionID, process: target) }
            s.stopping[sessionID] = task
            return task
        }
        defer { state.withLock { _ = $0.stopping.removeValue(forKey: sessionID) } }
        return try await task.value
    }

    /// The process to stop for a session (a run id, or a pending id).
    func stopTarget(sessionID: String, state s: State) throws(ControlError) -> ProcessSnapshot {
        var pid: Int?
        var ticks: UInt64?
        let started = s.lifecycle.started
        if let run = started[sessionID] ?? started.values.first(where: { $0.runID == sessionID }), run.exit == nil {
            pid = run.pid
            ticks = run.startTicks
        }
        if pid == nil, let snapshot = catalog.snapshot(id: sessionID) {
            guard snapshot.isLive else { throw .notRunning("session \(sessionID) is not running (\(snapshot.status.rawValue))") }
            pid = snapshot.liveness.pid
        }
        guard let pid, let process = ProcessInspector.snapshot(pid), !process.isZombie, ticks == nil || process.startTicks == ticks else {
            throw .notRunning("session \(sessionID) has no running loop process")
        }
        guard !ProcessInspector.isCurrentProcess(process) else {
            throw .forbidden("the loop lock of session \(sessionID) is held by this server's own process; refusing to signal it")
        }
        guard ProcessInspector.belongsToCurrentUser(process) else {
            throw .forbidden("the loop process \(pid) belongs to another user")
        }
        return process
    }

    private func performStop(sessionID: String, process: ProcessSnapshot) async throws -> StopOutcome {
        let target = ProcessInspector.signalTarget(for: process)
        logger.notice("stopping session \(sessionID): SIGTERM to \(target < 0 ? "process group \(-target)" : "pid \(target)")")
        kill(target, SIGTERM)
        // A stopped (paused) process only sees SIGTERM once it continues.
        kill(target, SIGCONT)
        var signal = "SIGTERM"
        if !(await waitUntilGone(process, timeout: .milliseconds(Int(configuration.stopGrace * 1000)))) {
            logger.notice("session \(sessionID) did not stop within \(configuration.stopGrace)s; SIGKILL")
            kill(target, SIGKILL)
            signal = "SIGKILL"
            if !(await waitUntilGone(process, timeout: .seconds(5))) {
                logger.error("session \(sessionID): pid \(process.pid) is still there 5 s after SIGKILL")
            }
        }
        let runID = state.withLock { s in
            let started = s.lifecycle.started
            return started[sessionID]?.runID ?? started.values.first { $0.runID == sessionID }?.runID
        } ?? sessionID
        handle(.unpaused(id: runID))
        await catalog.catchUp(id: runID)
        let terminated = catalog.snapshot(id: runID)?.state.termination != nil
        return StopOutcome(signal: signal, pid: process.pid, terminated: terminated)
    }

    /// Waits until the process has exited — for our own children, until they have been reaped too, so the process
    /// table has no zombie left when the stop answers.
    private func waitUntilGone(_ process: ProcessSnapshot, timeout: Duration) async -> Bool {
        let child = state.withLock { s in s.children.values.first { Int($0.pid) == process.pid } }
        if let child { return await child.waitForExit(timeout: timeout) != nil }
        return await ProcessExitWatch.waitUntilGone(process, timeout: timeout)
    }
}
