import Foundation
import Synchronization

/// The callers' requests (catch up, pause, synchronize, re-scan), served between passes of the loop.
extension CatalogEngine {
    /// Serves what callers asked for since the last pass; false when asked to stop (the rest is answered at finish).
    func serveRequests() -> Bool {
        let (stop, catchUps, pauses, rescanRequested, syncWaiters) = catalog.shared.withLock { s in
            defer {
                s.catchUps = []
                s.pauses = []
                s.rescanRequested = false
                s.syncWaiters = []
            }
            return (s.stopRequested, s.catchUps, s.pauses, s.rescanRequested, s.syncWaiters)
        }
        if rescanRequested { needsRescan = true }
        if !syncWaiters.isEmpty {
            synchronize()
            syncWaiters.forEach { $0.resume() }
        }
        for request in pauses {
            let changed = catalog.shared.withLock { s -> RunSnapshot? in
                guard s.runs[request.id] != nil, s.runs[request.id]!.paused != request.paused else { return nil }
                s.runs[request.id]!.paused = request.paused
                return s.runs[request.id]
            }
            if let changed { catalog.announce(.updated(changed)) }
            request.continuation.resume()
        }
        for request in catchUps {
            catchUp(id: request.id)
            request.continuation.resume()
        }
        return !stop
    }

    /// Re-discovers every workspace and reads every run now.
    func synchronize() {
        rescan()
        dirtyRuns.formUnion(tails.keys)
        readDirtyRuns()
        probeLiveness(all: true)
    }

    /// Reads one run's file and probes its liveness now.
    func catchUp(id: String) {
        guard let tail = tails[id] else { return }
        if readNew(tail, announce: true) == .missing {
            removeRun(id)
        } else {
            probeLiveness(paths: [tail.location.stateDirectory])
        }
    }

    /// Publishes the first discovery's report and wakes whoever waits for it.
    func announceReady(_ report: RunCatalog.StartupReport) {
        let waiters = catalog.shared.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.startupReport = report
            s.ready = true
            defer { s.readyWaiters = [] }
            return s.readyWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Answers every request still waiting once the thread stops, then whoever waits for it to finish.
    func releaseWaiters() {
        let (waiting, pausing, syncing) = catalog.shared.withLock { s in
            defer {
                s.catchUps = []
                s.pauses = []
                s.syncWaiters = []
            }
            return (s.catchUps, s.pauses, s.syncWaiters)
        }
        waiting.forEach { $0.continuation.resume() }
        pausing.forEach { $0.continuation.resume() }
        syncing.forEach { $0.resume() }
        let finishWaiters = catalog.shared.withLock { s in
            s.finished = true
            defer { s.finishWaiters = [] }
            return s.finishWaiters
        }
        finishWaiters.forEach { $0.resume() }
    }
}
