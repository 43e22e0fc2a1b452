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
        restore(tail, from: entry, indexed: true, keepDetails: true)
        return true
    }

    /// The index entry of a run, details included, if it still describes the run's file.
    static func indexEntry(for location: RunLocation, in index: RunIndexStore, logger: Logger) -> RunIndexStore.Entry? {
        usableEntry(for: location, in: index, logger: logger) { () throws(RunIndexStore.IndexError) in try index.load(id: location.id) }
    }

    /// The list part of a run's index entry (its details not read), if it still describes the run's file.
    static func indexSummary(for location: RunLocation, in index: RunIndexStore, logger: Logger) -> RunIndexStore.SummaryEntry? {
        usableEntry(for: location, in: index, logger: logger) { () throws(RunIndexStore.IndexError) in try index.loadSummary(id: location.id) }
    }

    /// What `load` reads of a run's entry, if it can be read and still describes the run's file. A damaged entry is
    /// removed (the run is folded from its file and indexed again).
    private static func usableEntry<Entry: RunIndexPosition>(
        for location: RunLocation, in index: RunIndexStore, logger: Logger, _ load: () throws(RunIndexStore.IndexError) -> Entry?
    ) -> Entry? {
        let id = location.id
        let entry: Entry
        do {
            guard let loaded = try load() else { return nil }
            entry = loaded
        } catch {
            logger.warning("ignoring the run's index entry; reading its file from the start", metadata: ["id": "\(id)", "error": "\(error)"])
            if error.isDamage { index.remove(id: id) }
            return nil
        }
        guard entry.file == location.file, fileMatches(entry) else {
            logger.debug("the run file changed since it was indexed; reading it from the start", metadata: ["id": "\(id)"])
            return nil
        }
        return entry
    }

    /// Sets a new run's tail and snapshot to a fold (`indexed`: the one its index entry holds).
    func restore(_ tail: Tail, from entry: RunIndexStore.Entry, indexed: Bool, keepDetails: Bool) {
        if !keepDetails { detailsDropped += 1 }
        let id = tail.location.id
        tail.known.restore(
            offset: entry.offset, lineCount: entry.state.lineCount, head: entry.head, end: entry.tail, device: entry.device, inode: entry.inode,
            indexed: indexed
        )
        catalog.shared.withLock { s in
            s.runs[id]?.adopt(entry.state, keepDetails: keepDetails)
            s.runs[id]?.checkpoints = entry.checkpoints
            s.runs[id]?.device = entry.device
            s.runs[id]?.inode = entry.inode
        }
    }

    /// Sets a new run's tail and snapshot to the list part of its index entry: its details stay on disk until they are
    /// asked for (``RunCatalog/detailedSnapshot(id:)``) or lines are folded in (``restoreDetails(_:)``).
    func restore(_ tail: Tail, listedFrom entry: RunIndexStore.SummaryEntry) {
        let id = tail.location.id
        tail.known.restore(
            offset: entry.offset, lineCount: entry.summary.lineCount, head: entry.head, end: entry.tail, device: entry.device, inode: entry.inode,
            indexed: true
        )
        catalog.shared.withLock { s in s.runs[id]?.list(from: entry) }
    }

    /// Whether the file at the entry's path is still the file it describes, grown or not.
    static func fileMatches(_ entry: some RunIndexPosition) -> Bool {
        let fd = open(entry.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd), status.device == entry.device, status.inode == entry.inode, status.size >= entry.offset else {
            return false
        }
        guard entry.head.count <= RunTail.headSize, entry.head.count >= min(RunTail.headSize, entry.offset), entry.head.count <= status.size,
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

    /// Queues every run whose entry is behind (and not queued yet).
    func queueChangedRunsForIndexing() {
        let queued = Set(indexQueue)
        indexQueue += tails.values.filter { $0.known.needsIndexing && !$0.awaitingFold && !queued.contains($0.location.id) }.map(\.location.id)
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

    func saveIndexEntry(_ tail: Tail, into index: RunIndexStore) {
        let id = tail.location.id
        guard let device = tail.known.device, let inode = tail.known.inode, let snapshot = catalog.snapshot(id: id), let state = snapshot.fold,
            state.lineCount == tail.known.lineCount, snapshot.generation == tail.known.generation
        else { return }
        let offset = tail.known.splitter.lineStart
        // The head and end bytes were read with the lines; the file must still be that file for them to mean anything.
        guard tail.known.end.count == min(RunIndexStore.tailSize, offset), tail.known.head.count >= min(RunTail.headSize, offset),
            let status = FileSystem.status(tail.location.file), status.device == device, status.inode == inode, status.size >= offset
        else { return }
        let entry = RunIndexStore.Entry(
            file: tail.location.file, device: device, inode: inode, offset: offset, head: tail.known.head, tail: tail.known.end, checkpoints: snapshot.checkpoints,
            state: state
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
}

extension RunSnapshot {
    /// The list part of an index entry, its details left on disk (one access to the catalog's table).
    fileprivate mutating func list(from entry: RunIndexStore.SummaryEntry) {
        summary = entry.summary
        details = nil
        checkpoints = entry.checkpoints
        device = entry.device
        inode = entry.inode
    }
}
