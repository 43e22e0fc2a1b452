import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs listed from a fast scan: their full folds, made in the background, adopted on the catalog's thread.
///
/// While a run awaits its fold, its snapshot has the scan's summary (exact) and no details, and the catalog does not
/// read its file on: what was appended meanwhile is read, and announced, right after the fold is adopted — the fold
/// covers exactly the lines the scan counted, so reading goes on from the same byte.
extension CatalogEngine {
    /// Lists a run from its scan: the summary and checkpoints published, the tail where the scan ended, the fold to come.
    func adoptScan(_ tail: Tail, _ scan: RunFileScan) {
        let id = tail.location.id
        tail.known.restore(
            offset: scan.offset, lineCount: scan.summary.lineCount, head: scan.head, end: scan.end, device: scan.device, inode: scan.inode, indexed: false
        )
        tail.awaitingFold = true
        catalog.shared.withLock { s in
            s.runs[id]?.summary = scan.summary
            s.runs[id]?.details = nil
            s.runs[id]?.foldPending = true
            s.runs[id]?.checkpoints = scan.checkpoints
            s.runs[id]?.device = scan.device
            s.runs[id]?.inode = scan.inode
        }
    }

    /// The fold a run awaits: its file through the lines its scan counted.
    func foldJob(_ tail: Tail) -> BackgroundFolds.Job? {
        guard let device = tail.known.device, let inode = tail.known.inode else { return nil }
        return BackgroundFolds.Job(
            location: tail.location, device: device, inode: inode, lines: tail.known.lineCount, offset: tail.known.splitter.lineStart,
            head: tail.known.head, end: tail.known.end
        )
    }

    /// Starts folding the runs listed from their scans: live ones first (their events wait for it), then the newest.
    func startBackgroundFolds() {
        let waiting = tails.values.filter(\.awaitingFold)
        guard !waiting.isEmpty else { return }
        let keys = catalog.shared.withLock { s in
            waiting.map { tail -> (Int, Double) in
                let run = s.runs[tail.location.id]
                let rank = run?.isLive == true ? 0 : run?.isCurrent == true ? 1 : 2
                return (rank, -(run?.startDate?.timeIntervalSince1970 ?? 0))
            }
        }
        var jobs: [BackgroundFolds.Job] = []
        for position in waiting.indices.sorted(by: { keys[$0] < keys[$1] }) {
            let tail = waiting[position]
            if let job = foldJob(tail) { jobs.append(job) } else { completeFold(tail, with: .failed("its file was never read")) }
        }
        backgroundFoldStarted = Date()
        logger.info("folding \(jobs.count) runs in the background (listed from a fast scan until then)")
        let catalog = catalog
        let index = index
        let maxLineBytes = configuration.maxLineBytes
        let foldObserver = configuration.foldObserver
        let folds = catalog.backgroundFolds
        let logger = logger
        folds.start(jobs, threads: max(1, configuration.backgroundFoldThreads)) { job in
            let stop = { folds.isCancelled || catalog.shared.withLock { $0.stopRequested } }
            let start = ContinuousClock.now
            var outcome = BackgroundFolds.fold(job, maxLineBytes: maxLineBytes, stop: stop)
            if stop() { return }
            if case .folded(let entry, _) = outcome { foldObserver?(entry.state.lineCount, entry.state.malformedCount, ContinuousClock.now - start) }
            if case .folded(let entry, _) = outcome, let index {
                do {
                    try index.save(entry, id: job.id)
                    outcome = .folded(entry, indexed: true)
                } catch {
                    logger.debug("cannot write the run index", metadata: ["id": "\(job.id)", "error": "\(error)"])
                }
            }
            catalog.postFromThread(.folded(id: job.id, outcome))
        }
    }

    /// A fold posted by a worker: adopted if the run still awaits it, then the callers that waited for it are answered.
    func receiveFold(id: String, _ outcome: BackgroundFolds.Outcome) {
        guard let tail = tails[id], tail.awaitingFold else { return }
        completeFold(tail, with: outcome)
        answerParkedCatchUps(of: id, probe: true)
    }

    /// Folds a run that awaits its fold here and now (on the catalog's thread): when its loop ended, its last lines
    /// must be announced before the end is.
    func foldNow(_ tail: Tail) {
        catalog.backgroundFolds.withdraw(tail.location.id)
        let start = ContinuousClock.now
        let outcome: BackgroundFolds.Outcome =
            foldJob(tail).map { BackgroundFolds.fold($0, maxLineBytes: configuration.maxLineBytes, stop: { false }) } ?? .failed("its file was never read")
        if case .folded(let entry, _) = outcome { configuration.foldObserver?(entry.state.lineCount, entry.state.malformedCount, ContinuousClock.now - start) }
        completeFold(tail, with: outcome)
        answerParkedCatchUps(of: tail.location.id, probe: false)
    }

    /// Adopts a run's fold in place of its scan, reads on from where both ended, and tells whoever waits.
    func completeFold(_ tail: Tail, with outcome: BackgroundFolds.Outcome) {
        let id = tail.location.id
        tail.awaitingFold = false
        defer {
            resumeFoldWaiters(id)
            foldsOutstanding -= 1
            if foldsOutstanding == 0 { backgroundFoldsDone() }
        }
        let listed = Date()
        let before = catalog.snapshot(id: id)
        switch outcome {
        case .folded(let entry, let indexed)
        where entry.offset == tail.known.splitter.lineStart && entry.state.lineCount == tail.known.lineCount && entry.device == tail.known.device
            && entry.inode == tail.known.inode:
            if let before, case let differences = before.summary.listDifferences(from: entry.state.summary), !differences.isEmpty {
                // A bug if it shows: the list showed other values than the fold's until now.
                logger.error("the fast scan of a run disagrees with its fold; showing the fold's", metadata: ["id": "\(id)", "fields": "\(differences)"])
            }
            catalog.shared.withLock { s in
                s.runs[id]?.adopt(entry.state)
                s.runs[id]?.checkpoints = entry.checkpoints
                s.runs[id]?.foldPending = false
            }
            if indexed { tail.known.indexed = (tail.known.lineCount, tail.known.generation) }
        case .folded:
            markFoldFailed(id, because: "the file changed while it was folded")
        case .failed(let reason):
            markFoldFailed(id, because: reason)
        }
        // What was appended meanwhile (announced now), or the file read again when it was replaced.
        switch readNew(tail, announce: true) {
        case .missing:
            removeRun(id)
            return
        case .more: dirtyRuns.insert(id)
        case .done, .failed: break
        }
        if !tail.known.needsIndexing { dropDetailsIfFinished(tail) }
        if let before, let after = catalog.snapshot(id: id), before.session(paused: false, now: listed) != after.session(paused: false, now: listed) {
            // The fold has what the scan does not (the hat's trigger): the list's clients hear of it.
            catalog.announce(.updated(after))
        }
    }

    /// The run keeps the scan's summary and has no details until they are read back from its file when asked for.
    private func markFoldFailed(_ id: String, because reason: String) {
        logger.notice("a run listed from its scan could not be folded in the background; reading its file again", metadata: ["id": "\(id)", "reason": "\(reason)"])
        catalog.shared.withLock { s in s.runs[id]?.foldPending = false }
    }

    /// Every background fold is in: memory the folding used goes back to the system.
    func backgroundFoldsDone() {
        returnFreedMemory(always: true)
        let seconds = backgroundFoldStarted.map { Date().timeIntervalSince($0) } ?? 0
        logger.info("background folds done", metadata: ["seconds": "\(String(format: "%.2f", seconds))"])
    }

    /// Wakes the callers waiting for a run's fold (``RunCatalog/waitUntilFolded(id:timeout:)``).
    func resumeFoldWaiters(_ id: String) {
        let waiting = catalog.shared.withLock { $0.foldWaiters.removeValue(forKey: id) }
        waiting?.values.forEach { $0.resume() }
    }

    /// Catch-ups asked while the run awaited its fold, answered now that it is in and read on.
    func answerParkedCatchUps(of id: String, probe: Bool) {
        guard let parked = parkedCatchUps.removeValue(forKey: id) else { return }
        if probe, let tail = tails[id] { probeLiveness(paths: [tail.location.stateDirectory]) }
        parked.forEach { $0.answer() }
    }

    /// A run that awaited its fold is gone: nothing will come for it.
    func forgetFold(_ id: String) {
        catalog.backgroundFolds.withdraw(id)
        foldsOutstanding -= 1
        resumeFoldWaiters(id)
        parkedCatchUps.removeValue(forKey: id)?.forEach { $0.answer() }
        if foldsOutstanding == 0 { backgroundFoldsDone() }
    }
}
