import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The on-disk index: restoring a run's fold state at discovery, writing it back as runs change.
extension CatalogEngine {
    /// Restores `tail` and its snapshot from the index when the entry matches the file; true if it did.
    func restoreFromIndex(_ tail: Tail) -> Bool {
        guard let index, let entry = Self.indexEntry(for: tail.location, in: index, logger: logger) else { return false }
        restore(tail, from: entry, indexed: true)
        return true
    }

    /// The index entry of a run, if it still describes the run's file.
    static func indexEntry(for location: RunLocation, in index: RunIndexStore, logger: Logger) -> RunIndexStore.Entry? {
        let id = location.id
        let entry: RunIndexStore.Entry
        do {
            guard let loaded = try index.load(id: id) else { return nil }
            entry = loaded
        } catch {
            logger.warning("ignoring the run's index entry; reading its file from the start", metadata: ["id": "\(id)", "error": "\(error)"])
            index.remove(id: id)
            return nil
        }
        guard entry.file == location.file, fileMatches(entry) else {
            logger.debug("the run file changed since it was indexed; reading it from the start", metadata: ["id": "\(id)"])
            return nil
        }
        return entry
    }

    /// Sets a new run's tail and snapshot to a fold (`indexed`: the one its index entry holds).
    func restore(_ tail: Tail, from entry: RunIndexStore.Entry, indexed: Bool) {
        if !entry.state.hasDetails { detailsDropped += 1 }
        let id = tail.location.id
        tail.known.restore(
            offset: entry.offset, lineCount: entry.state.lineCount, head: entry.head, end: entry.tail, device: entry.device, inode: entry.inode,
            indexed: indexed
        )
        catalog.shared.withLock { s in
            s.runs[id]?.state = entry.state
            s.runs[id]?.checkpoints = entry.checkpoints
            s.runs[id]?.device = entry.device
            s.runs[id]?.inode = entry.inode
        }
    }

    // MARK: - First pass on several threads

    /// A new run's fold, made before it is added: from its index entry, or from its whole file.
    struct Prepared: Sendable {
        var entry: RunIndexStore.Entry
        var fromIndex: Bool
        /// The entry is what the index holds (read from it, or written by the worker that folded it).
        var indexed: Bool
    }

    /// Folds the runs found by the first discovery on every core (each run on one thread; the engine adds them in
    /// order afterwards and reads on from where each fold ended), logging progress.
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
            if let index, let entry = Self.indexEntry(for: location, in: index, logger: logger) {
                prepared = Prepared(entry: entry, fromIndex: true, indexed: true)
            } else if let entry = Self.foldWhole(location, maxLineBytes: maxLineBytes, stop: stop) {
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
            if prepared.indexed, dropFinished, prepared.entry.state.termination != nil { prepared.entry.state.dropDetails() }
            results.withLock { $0[location.id] = prepared }
            let report = progress.withLock { p -> (done: Int, fromIndex: Int, lines: Int)? in
                p.done += 1
                if prepared.fromIndex { p.fromIndex += 1 } else { p.lines += prepared.entry.state.lineCount }
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

    /// A run file folded from its start, as an index entry (not written anywhere yet).
    static func foldWhole(_ location: RunLocation, maxLineBytes: Int, stop: () -> Bool) -> RunIndexStore.Entry? {
        let fd = open(location.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd),
            let fold = try? EventFileReader.fold(fd: fd, lines: nil, maxLineBytes: maxLineBytes, stop: stop)
        else { return nil }
        let offset = fold.splitter.lineStart
        let head = readHead(fd: fd, count: min(headSize, offset))
        guard head.count == min(headSize, offset), let end = readBytes(fd: fd, count: min(RunIndexStore.tailSize, offset), endingAt: offset) else {
            return nil
        }
        return RunIndexStore.Entry(
            file: location.file, device: status.device, inode: status.inode, offset: offset, head: head, tail: end,
            checkpoints: fold.checkpoints, state: fold.state
        )
    }

    /// Whether the file at the entry's path is still the file it describes, grown or not.
    static func fileMatches(_ entry: RunIndexStore.Entry) -> Bool {
        let fd = open(entry.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd), status.device == entry.device, status.inode == entry.inode, status.size >= entry.offset else {
            return false
        }
        guard entry.head.count <= headSize, entry.head.count >= min(headSize, entry.offset), entry.head.count <= status.size,
            entry.tail.count == min(RunIndexStore.tailSize, entry.offset)
        else { return false }
        return readHead(fd: fd, count: entry.head.count) == entry.head
            && readBytes(fd: fd, count: entry.tail.count, endingAt: entry.offset) == entry.tail
    }

    static func readBytes(fd: Int32, count: Int, endingAt end: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: end - count) }
        return n == count ? bytes : nil
    }

    /// Writes queued entries until `budget` seconds have passed.
    func saveQueuedIndexEntries(budget: Double) {
        guard let index, !indexQueue.isEmpty else { return }
        let deadline = Date().timeIntervalSince1970 + budget
        while let id = indexQueue.popLast() {
            if let tail = tails[id], tail.known.needsIndexing { saveIndexEntry(tail, into: index) }
            if Date().timeIntervalSince1970 >= deadline { break }
        }
        if indexQueue.isEmpty { returnFreedMemory() }
    }

    /// Hands memory freed by dropped details back to the system (glibc keeps freed heap pages otherwise).
    func returnFreedMemory(always: Bool = false) {
        guard detailsDropped >= 16 || always else { return }
        detailsDropped = 0
        Heap.trim()
    }

    func saveIndexEntry(_ tail: Tail, into index: RunIndexStore) {
        let id = tail.location.id
        guard let device = tail.known.device, let inode = tail.known.inode, let snapshot = catalog.snapshot(id: id), snapshot.state.hasDetails,
            snapshot.state.lineCount == tail.known.lineCount, snapshot.generation == tail.known.generation
        else { return }
        let offset = tail.known.splitter.lineStart
        // The head and end bytes were read with the lines; the file must still be that file for them to mean anything.
        guard tail.known.end.count == min(RunIndexStore.tailSize, offset), tail.known.head.count >= min(Self.headSize, offset),
            let status = FileSystem.status(tail.location.file), status.device == device, status.inode == inode, status.size >= offset
        else { return }
        let entry = RunIndexStore.Entry(
            file: tail.location.file, device: device, inode: inode, offset: offset, head: tail.known.head, tail: tail.known.end, checkpoints: snapshot.checkpoints,
            state: snapshot.state
        )
        do {
            try index.save(entry, id: id)
            tail.known.indexed = (tail.known.lineCount, tail.known.generation)
            dropDetailsIfFinished(tail)
        } catch {
            // At most one warning a minute; not retried until the run changes again.
            let now = Date().timeIntervalSince1970
            if now - lastIndexWarning >= 60 {
                lastIndexWarning = now
                logger.warning("cannot write the run index", metadata: ["id": "\(id)", "error": "\(error)"])
            }
            tail.known.indexed = (tail.known.lineCount, tail.known.generation)
        }
    }

    // MARK: - Details of finished runs

    /// A finished run whose index entry is current keeps only what the list needs in memory; its details are read back
    /// from the entry when asked for (``RunCatalog/detailedSnapshot(id:)``) or when the file grows again.
    func dropDetailsIfFinished(_ tail: Tail) {
        guard index != nil, configuration.dropFinishedDetails, !tail.known.needsIndexing else { return }
        let id = tail.location.id
        let dropped = catalog.shared.withLock { s -> Bool in
            guard let run = s.runs[id], run.state.hasDetails, !run.isLive, run.state.lineCount == tail.known.lineCount else { return false }
            s.runs[id]!.state.dropDetails()
            return true
        }
        if dropped { detailsDropped += 1 }
    }

    /// Puts a run's details back (from its index entry, else by folding its file up to where the catalog is), before
    /// new lines are folded in. False if neither works.
    func restoreDetails(_ tail: Tail) -> Bool {
        let id = tail.location.id
        guard let device = tail.known.device, let inode = tail.known.inode else { return false }
        var state: RunState?
        if let index, let entry = try? index.load(id: id), entry.file == tail.location.file, entry.device == device, entry.inode == inode,
            entry.offset == tail.known.splitter.lineStart, entry.state.lineCount == tail.known.lineCount
        {
            state = entry.state
        } else {
            state = try? EventFileReader.foldState(
                file: tail.location.file, device: device, inode: inode, lines: tail.known.lineCount, maxLineBytes: configuration.maxLineBytes
            )
        }
        guard let state, state.lineCount == tail.known.lineCount else {
            logger.warning("cannot read back the details of a finished run", metadata: ["id": "\(id)"])
            return false
        }
        catalog.shared.withLock { s in
            guard s.runs[id]?.state.hasDetails == false else { return }
            s.runs[id]!.state = state
        }
        return true
    }
}
