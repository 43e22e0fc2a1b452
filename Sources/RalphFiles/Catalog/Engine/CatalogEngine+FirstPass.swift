import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The first discovery's folding, on every core: each run restored from its index entry or folded whole.
extension CatalogEngine {
    /// What the first discovery prepared for a new run before it is added: a fold (from its index entry, or from its
    /// whole file), or — for a large file with no usable entry — a fast scan whose fold is made in the background.
    struct Prepared: Sendable {
        var entry: RunIndexStore.Entry?
        /// A finished run's index entry read without its details (they are read back when needed).
        var listing: RunIndexStore.SummaryEntry?
        var scan: RunFileScan?
        var fromIndex = false
        /// The entry is what the index holds (read from it, or written by the worker that folded it).
        var indexed = false
        /// False for a finished run whose entry is indexed: only its summary is kept in memory.
        var keepDetails = true

        init(entry: RunIndexStore.Entry, fromIndex: Bool, indexed: Bool) {
            self.entry = entry
            self.fromIndex = fromIndex
            self.indexed = indexed
        }

        init(scan: RunFileScan) { self.scan = scan }

        init(listing: RunIndexStore.SummaryEntry) {
            self.listing = listing
            fromIndex = true
            indexed = true
            keepDetails = false
        }

        /// Lines read to prepare it (none for an index entry).
        var linesRead: Int { fromIndex ? 0 : entry?.state.lineCount ?? scan?.summary.lineCount ?? 0 }
    }

    /// Prepares the runs found by the first discovery on every core (each run on one thread; the engine adds them in
    /// order afterwards and reads on from where each ended), logging progress: restored from the index, folded whole
    /// when small, else scanned (``RunFileScan``) and folded in the background once the catalog is ready.
    func prepare(_ locations: [RunLocation]) -> [String: Prepared] {
        guard !locations.isEmpty else { return [:] }
        let results = Mutex<[String: Prepared]>([:])
        let progress = Mutex((done: 0, fromIndex: 0, lines: 0, lastLog: Date().timeIntervalSince1970))
        let index = index
        let maxLineBytes = configuration.maxLineBytes
        let catalog = catalog
        let logger = logger
        let total = locations.count
        let dropFinished = configuration.dropFinishedDetails
        let scanThreshold = configuration.scanThreshold
        let foldObserver = configuration.foldObserver
        let buffers = RunFileScan.Buffers()
        let writeFailures = Mutex(0)
        defer {
            let failures = writeFailures.withLock { $0 }
            if failures > 1 { logger.warning("\(failures) runs could not be written to the run index; they are folded from their files at each start") }
        }
        DispatchQueue.concurrentPerform(iterations: locations.count) { i in
            let stop = { catalog.shared.withLock { $0.stopRequested } }
            guard !stop() else { return }
            let location = locations[i]
            var prepared: Prepared
            if let index, let restored = Self.fromIndex(location, index: index, keepFinishedDetails: !dropFinished, logger: logger) {
                prepared = restored
            } else if let scan = Self.scanLarge(location, threshold: scanThreshold, maxLineBytes: maxLineBytes, buffers: buffers, logger: logger, stop: stop) {
                prepared = Prepared(scan: scan)
            } else if let entry = Self.foldWhole(location, maxLineBytes: maxLineBytes, logger: logger, stop: stop, observer: foldObserver) {
                prepared = Prepared(entry: entry, fromIndex: false, indexed: false)
                if let index {
                    do {
                        try index.save(entry, id: location.id)
                        prepared.indexed = true
                    } catch {
                        // Once, not once per run (a full disk would say the same a thousand times).
                        if writeFailures.withLock({ $0 += 1; return $0 == 1 }) {
                            logger.warning("cannot write the run index", metadata: ["id": "\(location.id)", "error": "\(error)"])
                        }
                    }
                }
            } else {
                return
            }
            // A run that wrote loop.terminate is not live: its details wait in the index (so a first pass over a
            // thousand runs never holds a thousand full folds at once).
            if prepared.indexed, dropFinished, prepared.entry?.state.termination != nil { prepared.keepDetails = false }
            results.withLock { $0[location.id] = prepared }
            let report = progress.withLock { p -> (done: Int, fromIndex: Int, lines: Int)? in
                p.done += 1
                if prepared.fromIndex { p.fromIndex += 1 } else { p.lines += prepared.linesRead }
                let now = Date().timeIntervalSince1970
                guard now - p.lastLog >= 2 else { return nil }
                p.lastLog = now
                return (p.done, p.fromIndex, p.lines)
            }
            if let report {
                logger.info(
                    "indexing runs", metadata: ["done": "\(report.done) of \(total)", "from-index": "\(report.fromIndex)", "lines-read": "\(report.lines)"]
                )
            }
        }
        return results.withLock { $0 }
    }

    /// A run restored from its index entry: a finished run from the entry's list part alone (its details are not even
    /// read), any other with its details (it may be live, and live runs keep them in memory).
    static func fromIndex(_ location: RunLocation, index: RunIndexStore, keepFinishedDetails: Bool, logger: Logger) -> Prepared? {
        guard let listing = indexSummary(for: location, in: index, logger: logger) else { return nil }
        if !keepFinishedDetails, listing.summary.termination != nil { return Prepared(listing: listing) }
        return indexEntry(for: location, in: index, logger: logger).map { Prepared(entry: $0, fromIndex: true, indexed: true) }
    }

    /// A fast scan of a run file of at least `threshold` bytes (nil: smaller, or it cannot be scanned here — it is then
    /// folded whole, which reports why).
    static func scanLarge(
        _ location: RunLocation, threshold: Int, maxLineBytes: Int, buffers: RunFileScan.Buffers, logger: Logger, stop: () -> Bool
    ) -> RunFileScan? {
        let fd = open(location.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd), status.size >= threshold else { return nil }
        do {
            return try RunFileScan.scan(fd: fd, maxLineBytes: maxLineBytes, buffers: buffers, stop: stop)
        } catch {
            if error != .stopped { logger.notice("cannot scan the run file; folding it", metadata: ["id": "\(location.id)", "error": "\(error)"]) }
            return nil
        }
    }

    /// A run file folded from its start, as an index entry (not written anywhere yet).
    /// Nil when it cannot be read here (logged): the engine then reads it on its own thread, which reports why.
    static func foldWhole(
        _ location: RunLocation, maxLineBytes: Int, logger: Logger, stop: () -> Bool,
        observer: (@Sendable (_ lines: Int, _ malformed: Int, _ duration: Duration) -> Void)? = nil
    ) -> RunIndexStore.Entry? {
        let fd = open(location.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { return nil }
        let fold: EventFileReader.Fold
        do {
            let start = ContinuousClock.now
            fold = try EventFileReader.fold(fd: fd, lines: nil, maxLineBytes: maxLineBytes, stop: stop)
            observer?(fold.state.lineCount, fold.state.malformedCount, ContinuousClock.now - start)
        } catch {
            logger.debug("cannot fold the run file on a worker; the catalog reads it itself", metadata: ["id": "\(location.id)", "error": "\(error)"])
            return nil
        }
        let offset = fold.splitter.lineStart
        let head = readHead(fd: fd, count: min(RunTail.headSize, offset))
        guard head.count == min(RunTail.headSize, offset), let end = readBytes(fd: fd, count: min(RunIndexStore.tailSize, offset), endingAt: offset) else {
            return nil
        }
        return RunIndexStore.Entry(
            file: location.file, device: status.device, inode: status.inode, offset: offset, head: head, tail: end,
            checkpoints: fold.checkpoints, state: fold.state
        )
    }
}
