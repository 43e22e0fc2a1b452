import Foundation
import RalphAPI
import RalphFiles

/// Stopping like ralph does: a graceful stop writes the loop's `.ralph/stop-requested` (the worktree's own `.ralph`
/// for a worktree loop) and ralph ends at its next iteration boundary with its own `loop.terminate` (reason
/// `stopped`); a forced stop signals the process group (``stop(sessionID:)``). Which one was asked is recorded, so the
/// session shows it while the run winds down and after it ended.
extension RunSupervisor {
    /// How a stop request was answered.
    public enum StopAnswer: Sendable, Equatable {
        /// Graceful: the file is written; the loop ends at its next iteration boundary.
        case stopping(StopRequest, pid: Int?)
        /// Forced: the process is gone.
        case stopped(StopRequest, StopOutcome)
    }

    /// Stops a run: gracefully unless `force`, or unless a graceful stop is already pending (a second stop forces).
    /// A run whose events file does not exist yet (a pending start) has no iteration to finish: it is stopped by
    /// signal, and the answer says `forced`.
    public func requestStop(sessionID: String, force: Bool, now: Date = Date()) async throws -> StopAnswer {
        let snapshot = runSnapshot(forStop: sessionID)
        let runID = snapshot?.id ?? sessionID
        let pending = snapshot.map { stopRecord(for: $0.id)?.isGraceful == true || $0.liveness.stopRequestedAt != nil } ?? false
        guard let snapshot, !force, !pending else {
            let request = StopRequest(kind: StopRequest.forced, at: Timestamp.format(now))
            if let snapshot, !snapshot.isLive, state.withLock({ $0.stopping[sessionID] == nil }) {
                throw ControlError.notRunning("session \(snapshot.id) is not running (\(snapshot.status.rawValue))")
            }
            let outcome = try await stop(sessionID: sessionID)
            // Recorded once it happened (a refused stop records nothing), under the run id when the start resolved.
            handle(.stopRequested(id: snapshot?.id ?? startedRun(matching: sessionID)?.runID ?? runID, request))
            await persisted()
            return .stopped(request, outcome)
        }
        guard snapshot.isLive else { throw ControlError.notRunning("session \(snapshot.id) is not running (\(snapshot.status.rawValue))") }
        guard snapshot.location.layout == .ralph else {
            throw ControlError.conflict("session \(snapshot.id) uses the legacy .agent layout, which has no graceful stop; stop it with force=true")
        }
        let file = RalphLayout.stopRequested(stateDirectory: snapshot.location.stateDirectory)
        do throws(ConfinementError) {
            _ = try RootDirectory(path: snapshot.location.root).writeAtomically(Data(), to: file)
        } catch {
            throw ControlError.forbidden("cannot write \(file): \(error)")
        }
        let request = StopRequest(kind: StopRequest.graceful, at: Timestamp.format(now))
        handle(.stopRequested(id: snapshot.id, request))
        // A loop frozen by our SIGSTOP would never reach its iteration boundary: let it run on to it.
        if isPaused(snapshot.id) { _ = try await resume(sessionID: snapshot.id) }
        await persisted()
        logger.notice("graceful stop of session \(snapshot.id): wrote \(file)")
        return .stopping(request, pid: snapshot.liveness.pid)
    }

    /// The stop run control recorded for a run (pending, or the one that ended it).
    public func stopRecord(for id: String) -> StopRequest? {
        state.withLock { $0.lifecycle.stops[id] }
    }

    /// Calls `observer` with `(run id, stop)` whenever a stop is recorded, synchronously, before the stop request
    /// answers (so a session announced after it shows the stop). Observers must not block. Lives as long as the
    /// supervisor.
    public func observeStops(_ observer: @escaping @Sendable (_ id: String, _ request: StopRequest) -> Void) {
        state.withLock { s in
            s.nextKey += 1
            s.stopObservers[s.nextKey] = observer
        }
    }

    /// The runs with a recorded stop (for a list).
    public func stopRecords() -> [String: StopRequest] {
        state.withLock { $0.lifecycle.stops }
    }

    /// The catalog's run for a session id or the pending id of a start that resolved; nil for a start still pending.
    private func runSnapshot(forStop sessionID: String) -> RunSnapshot? {
        if let snapshot = catalog.snapshot(id: sessionID) { return snapshot }
        let runID = state.withLock { $0.lifecycle.started[sessionID]?.runID }
        return runID.flatMap { catalog.snapshot(id: $0) }
    }

    /// Asks a loop suspended by a lifecycle hook to go on: writes its single-use `.ralph/resume-requested` (ralph
    /// consumes it and clears the suspend state). Answers the loop's pid.
    func requestResume(_ snapshot: RunSnapshot) throws(ControlError) -> Int? {
        let file = RalphLayout.resumeRequested(stateDirectory: snapshot.location.stateDirectory)
        do throws(ConfinementError) {
            _ = try RootDirectory(path: snapshot.location.root).writeAtomically(Data(), to: file)
        } catch {
            throw .forbidden("cannot write \(file): \(error)")
        }
        logger.notice("resume of suspended session \(snapshot.id): wrote \(file)")
        return snapshot.liveness.pid
    }
}
