import Foundation
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pausing and resuming (SIGSTOP / SIGCONT). Run control is where "paused" lives: it sent the signal, it keeps the
/// record across restarts, and it tells its pause observers.
extension RunSupervisor {
    /// Re-applies what a previous server process left, after the catalog's first pass: paused runs still stopped stay
    /// paused, others are dropped; started runs in nested directories are watched again.
    public func restore() async {
        let (paused, started) = state.withLock { (Array($0.lifecycle.paused.values), Array($0.lifecycle.started.values)) }
        for run in started {
            catalog.addWorkspace(run.workingDirectory, root: run.root)
            if let runID = run.runID { assignStartedConfig(pendingID: run.pendingID, runID: runID) }
        }
        for run in paused {
            if let process = ProcessInspector.snapshot(run.pid), !process.isZombie, process.startTicks == run.startTicks || run.startTicks == nil,
                process.isStopped
            {
                handle(.stillPaused(id: run.id))
                logger.info("run \(run.id) is still paused (pid \(run.pid))")
            } else {
                handle(.unpaused(id: run.id))
                logger.info("run \(run.id) is no longer paused (its process was resumed or ended while the server was down)")
            }
        }
    }

    /// Starts ``restore()`` once the catalog is ready, as a task owned here (``shutdown()`` awaits it).
    public func restoreWhenReady() {
        own("restoring paused runs") { [self] in
            await catalog.waitUntilReady()
            if Task.isCancelled { return }
            await restore()
        }
    }

    /// SIGSTOP to the loop's process group; the run shows as `paused` until resumed, across server restarts too.
    public func pause(sessionID: String) async throws(ControlError) -> Int {
        guard let snapshot = catalog.snapshot(id: sessionID), snapshot.isLive else {
            throw .notRunning("session \(sessionID) is not running")
        }
        if state.withLock({ $0.lifecycle.paused[sessionID] != nil }) { throw .conflict("session \(sessionID) is already paused") }
        let process = try stopTarget(sessionID: sessionID, state: state.withLock { $0 })
        kill(ProcessInspector.signalTarget(for: process), SIGSTOP)
        handle(.paused(PausedRun(id: sessionID, pid: process.pid, startTicks: process.startTicks, pausedAt: Timestamp.now())))
        await persisted()
        logger.notice("paused session \(sessionID) (pid \(process.pid))")
        return process.pid
    }

    /// Resumes a run: SIGCONT to the loop's process group when this server paused it (says so when the run ended
    /// while paused); otherwise, for a loop a lifecycle hook suspended, writes ralph's `.ralph/resume-requested`.
    /// ``resumeKind(sessionID:)`` tells which one a resume will do.
    public func resume(sessionID: String) async throws(ControlError) -> Int {
        guard let paused = state.withLock({ $0.lifecycle.paused[sessionID] }) else {
            if let snapshot = catalog.snapshot(id: sessionID), !snapshot.isLive {
                throw .notRunning("session \(sessionID) is not running (\(snapshot.status.rawValue))")
            }
            if let snapshot = catalog.snapshot(id: sessionID), snapshot.isSuspended {
                guard let pid = try requestResume(snapshot) else { throw .notRunning("session \(sessionID) has no running loop process") }
                return pid
            }
            throw .conflict("session \(sessionID) is neither paused by this server nor suspended by a hook; there is nothing to resume")
        }
        handle(.unpaused(id: sessionID))
        await persisted()
        guard let process = ProcessInspector.snapshot(paused.pid), !process.isZombie, !ProcessInspector.isCurrentProcess(process),
            paused.startTicks == nil || process.startTicks == paused.startTicks
        else {
            await catalog.catchUp(id: sessionID)
            throw .notRunning("session \(sessionID) ended while it was paused")
        }
        kill(ProcessInspector.signalTarget(for: process), SIGCONT)
        logger.notice("resumed session \(sessionID) (pid \(process.pid))")
        return process.pid
    }

    /// What ``resume(sessionID:)`` will do for a run: `sigcont` (this server paused it), `resume_requested` (a hook
    /// suspended it), or nil (neither).
    public func resumeKind(sessionID: String) -> String? {
        if state.withLock({ $0.lifecycle.paused[sessionID] != nil }) { return "sigcont" }
        return catalog.snapshot(id: sessionID)?.isSuspended == true ? "resume_requested" : nil
    }

    /// A subscription to pause changes; ``stopObservingPauses(_:)`` ends it.
    public struct PauseSubscription: Hashable, Sendable {
        let id: Int
    }

    /// Calls `observer` with `(run id, paused)` whenever run control pauses or resumes a run, or finds after a restart
    /// that a run it paused is still stopped — synchronously, before the call that changed it returns, so a session
    /// composed after a pause answered shows it. Observers must not block.
    @discardableResult
    public func observePauses(_ observer: @escaping @Sendable (_ id: String, _ paused: Bool) -> Void) -> PauseSubscription {
        state.withLock { s in
            s.nextKey += 1
            s.pauseObservers[s.nextKey] = observer
            return PauseSubscription(id: s.nextKey)
        }
    }

    public func stopObservingPauses(_ subscription: PauseSubscription) {
        _ = state.withLock { $0.pauseObservers.removeValue(forKey: subscription.id) }
    }

    /// Whether this server paused the run (and has not resumed it). A paused run whose loop died is shown complete:
    /// callers combine this with the run's liveness.
    public func isPaused(_ id: String) -> Bool {
        state.withLock { $0.lifecycle.isPaused(id) }
    }

    /// The runs shown as paused (for a list).
    public func pausedRunIDs() -> Set<String> {
        state.withLock { s in Set(s.lifecycle.paused.keys.filter { s.lifecycle.isPaused($0) }) }
    }
}
