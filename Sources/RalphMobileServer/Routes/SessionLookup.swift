import AgentRunner
import Foundation
import NIOPosix
import RalphAPI
import RalphFiles

/// Turns the `{id}` of a session route into a run: a session id, a unique prefix of one, or a pending id answered by
/// `POST /api/sessions` (which resolves to its run once ralph created the events file).
struct SessionLookup: Sendable {
    let catalog: RunCatalog
    let supervisor: RunSupervisor
    /// Seconds ``detailed(_:)`` waits for a run listed from a fast scan to be folded (``ServerConfiguration/detailFoldWait``).
    var foldWait: Double = 10

    /// How long the state-frame feed waits for a run's fold: as long as it takes, within reason.
    static let stateFrameFoldWait: Double = 120

    enum Target {
        case run(RunSnapshot)
        /// Started here; ralph has not created its events file yet.
        case pending(RunSupervisor.StartedRun)
    }

    /// The run with its details, read back from the catalog's index (or the run file) if they were dropped from memory.
    ///
    /// A run listed from a fast scan after a first start is waited for while its fold is made (before the other
    /// runs'): never half-folded figures. If that takes longer than ``foldWait``, `503 unavailable` says so.
    func detailed(_ snapshot: RunSnapshot) async throws(APIError) -> DetailedRun {
        if let detailed = snapshot.detailed { return detailed }
        let catalog = catalog
        let id = snapshot.id
        if snapshot.foldPending, !(await catalog.waitUntilFolded(id: id, timeout: .milliseconds(Int(foldWait * 1000)))) {
            throw .other(
                .serviceUnavailable, .unavailable,
                "still reading: the server started a moment ago and is still reading the history of session '\(id)' "
                    + "(\(snapshot.summary.lineCount) lines); its list entry is exact already, its details follow in a few seconds: try again"
            )
        }
        if let current = catalog.snapshot(id: id), let detailed = current.detailed { return detailed }
        let result: Result<DetailedRun?, EventFileReader.ReadError>
        do {
            result = try await NIOThreadPool.singleton.runIfActive { () -> Result<DetailedRun?, EventFileReader.ReadError> in
                do throws(EventFileReader.ReadError) { return .success(try catalog.detailedSnapshot(id: id)) } catch { return .failure(error) }
            }
        } catch {
            throw .internalError("the server is shutting down")
        }
        switch result {
        case .success(let detailed?): return detailed
        case .success(nil): throw .sessionNotFound("session '\(id)' is gone")
        case .failure(let error): throw .conflict("cannot read the session's history: \(error); try again")
        }
    }

    func target(_ raw: String) async throws(APIError) -> Target {
        await catalog.waitUntilReady()
        switch catalog.resolve(raw) {
        case .found(let id):
            guard let snapshot = catalog.snapshot(id: id) else { throw .sessionNotFound("session '\(id)' is gone") }
            return .run(snapshot)
        case .ambiguous(let matches):
            throw .ambiguousID(raw, matches: matches)
        case .notFound(let reason):
            guard let started = supervisor.startedRun(matching: raw) else { throw .sessionNotFound(reason) }
            if let runID = started.runID, let snapshot = catalog.snapshot(id: runID) { return .run(snapshot) }
            return .pending(started)
        }
    }

    /// The run, refusing a pending one with `409 conflict` (there is no file to act on yet).
    func run(_ raw: String) async throws(APIError) -> RunSnapshot {
        switch try await target(raw) {
        case .run(let snapshot): return snapshot
        case .pending(let started):
            if started.exit != nil { throw .notRunning("session \(started.pendingID) ended (\(started.exit!)) before ralph created its events file") }
            throw .conflict("session \(started.pendingID) is starting; ralph has not created its events file yet")
        }
    }

    /// Waits until a pending run resolves, its process ends, or `seconds` pass — told by run control, which matches the
    /// run from the catalog's changes and the child's exit (after the exit it makes the catalog read the disk first, so
    /// a short run that ended before the catalog noticed its file still resolves).
    func waitForRun(_ pending: RunSupervisor.StartedRun, seconds: Double) async -> RunSnapshot? {
        if let runID = supervisor.startedRun(matching: pending.pendingID)?.runID { return catalog.snapshot(id: runID) }
        switch await supervisor.waitForStart(pendingID: pending.pendingID, timeout: .milliseconds(Int(seconds * 1000))) {
        case .run(let runID): return catalog.snapshot(id: runID)
        case .ended, nil: return nil
        }
    }

    /// A pending run as a session.
    func session(_ pending: RunSupervisor.StartedRun) -> Session? {
        supervisor.pendingSessions().first { $0.id == pending.pendingID }
    }
}
