import Foundation
import Synchronization

/// The callers' commands (``CatalogCommand``), served between passes of the loop.
extension CatalogEngine {
    /// Serves what callers posted since the last pass; false when asked to stop (the rest is answered at finish).
    ///
    /// New workspaces first, then one re-scan for every caller that asked to synchronize, then catch-ups:
    /// each caller is answered once its command is reflected in the published state.
    func serveCommands() -> Bool {
        let (stop, commands) = catalog.shared.withLock { s in
            defer { s.mailbox = [] }
            return (s.stopRequested, s.mailbox)
        }
        var synchronizers: [CatalogCommand] = []
        var catchUps: [(id: String, command: CatalogCommand)] = []
        for command in commands {
            switch command {
            case .addWorkspace(let workspace, let root):
                if !extraWorkspaces.contains(where: { $0.workspace == workspace }) { extraWorkspaces.append((workspace, root)) }
                needsRescan = true
            case .waitUntilReady:
                // The first discovery is done before the first command is served.
                command.answer()
            case .waitUntilFinished:
                finishWaiters.append(command)
            case .synchronize:
                synchronizers.append(command)
            case .catchUp(let id, _):
                if let tail = tails[id], tail.awaitingFold {
                    // Answered once the run's fold is in and its file read on from there (asked for first).
                    parkedCatchUps[id, default: []].append(command)
                    catalog.backgroundFolds.prioritize(id)
                } else {
                    catchUps.append((id, command))
                }
            case .folded(let id, let outcome):
                receiveFold(id: id, outcome)
            case .repairIndexEntry(let id):
                repairIndexEntry(id: id)
            }
        }
        if !synchronizers.isEmpty {
            synchronize()
            synchronizers.forEach { $0.answer() }
        }
        for request in catchUps {
            catchUp(id: request.id)
            request.command.answer()
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

    /// Publishes the first discovery's report; waiters posted before are answered by the next ``serveCommands()``.
    func announceReady(_ report: RunCatalog.StartupReport) {
        catalog.shared.withLock { s in
            s.startupReport = report
            s.ready = true
        }
        // Whoever posted `waitUntilReady` during the first discovery is answered right away, not after a wait.
        catalog.wake()
    }

    /// Once the thread stops: marks it finished and answers every command still posted (nothing is done for them),
    /// then whoever waits for the thread to finish.
    func releaseWaiters() {
        let commands = catalog.shared.withLock { s in
            s.finished = true
            defer { s.mailbox = [] }
            return s.mailbox
        }
        for command in commands {
            if case .waitUntilFinished = command { finishWaiters.append(command) } else { command.answer() }
        }
        for parked in parkedCatchUps.values.joined() { parked.answer() }
        parkedCatchUps = [:]
        let foldWaiters = catalog.shared.withLock { s in
            defer { s.foldWaiters = [:] }
            return s.foldWaiters.values.flatMap(\.values)
        }
        foldWaiters.forEach { $0.resume() }
        finishWaiters.forEach { $0.answer() }
        finishWaiters = []
    }
}
