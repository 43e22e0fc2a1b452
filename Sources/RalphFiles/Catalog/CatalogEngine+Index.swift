import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The on-disk index: restoring a run's fold state at discovery, writing it back as runs change.
extension CatalogEngine {
    /// Restores `tail` and its snapshot from the index when the entry matches the file; true if it did.
    func restoreFromIndex(_ tail: Tail) -> Bool {
        guard let index else { return false }
        let id = tail.location.id
        let entry: RunIndexStore.Entry
        do {
            guard let loaded = try index.load(id: id) else { return false }
            entry = loaded
        } catch {
            logger.warning("ignoring the run's index entry; reading its file from the start", metadata: ["id": "\(id)", "error": "\(error)"])
            index.remove(id: id)
            return false
        }
        guard entry.file == tail.location.file, Self.fileMatches(entry) else {
            logger.debug("the run file changed since it was indexed; reading it from the start", metadata: ["id": "\(id)"])
            return false
        }
        tail.splitter = LineSplitter(offset: entry.offset, maxLineBytes: configuration.maxLineBytes)
        tail.lineCount = entry.state.lineCount
        tail.head = entry.head
        tail.end = entry.tail
        tail.device = entry.device
        tail.inode = entry.inode
        tail.indexed = (entry.state.lineCount, tail.generation)
        catalog.shared.withLock { s in
            s.runs[id]?.state = entry.state
            s.runs[id]?.checkpoints = entry.checkpoints
            s.runs[id]?.device = entry.device
            s.runs[id]?.inode = entry.inode
        }
        return true
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
            if let tail = tails[id], tail.needsIndexing { saveIndexEntry(tail, into: index) }
            if Date().timeIntervalSince1970 >= deadline { break }
        }
        if indexQueue.isEmpty { returnFreedMemory() }
    }

    /// Hands memory freed by dropped details back to the system (glibc keeps freed heap pages otherwise).
    func returnFreedMemory() {
        guard detailsDropped >= 16 else { return }
        detailsDropped = 0
        #if canImport(Glibc)
        Self.mallocTrim?(0)
        #endif
    }

    #if canImport(Glibc)
    /// glibc's `malloc_trim` (declared in malloc.h, which the Glibc module does not export).
    static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
    #endif

    func saveIndexEntry(_ tail: Tail, into index: RunIndexStore) {
        let id = tail.location.id
        guard let device = tail.device, let inode = tail.inode, let snapshot = catalog.snapshot(id: id), snapshot.state.hasDetails,
            snapshot.state.lineCount == tail.lineCount, snapshot.generation == tail.generation
        else { return }
        let offset = tail.splitter.lineStart
        // The head and end bytes were read with the lines; the file must still be that file for them to mean anything.
        guard tail.end.count == min(RunIndexStore.tailSize, offset), tail.head.count >= min(Self.headSize, offset),
            let status = FileSystem.status(tail.location.file), status.device == device, status.inode == inode, status.size >= offset
        else { return }
        let entry = RunIndexStore.Entry(
            file: tail.location.file, device: device, inode: inode, offset: offset, head: tail.head, tail: tail.end, checkpoints: snapshot.checkpoints,
            state: snapshot.state
        )
        do {
            try index.save(entry, id: id)
            tail.indexed = (tail.lineCount, tail.generation)
            dropDetailsIfFinished(tail)
        } catch {
            logger.warning("cannot write the run index", metadata: ["id": "\(id)", "error": "\(error)"])
            // Not retried until the run changes again.
            tail.indexed = (tail.lineCount, tail.generation)
        }
    }

    // MARK: - Details of finished runs

    /// A finished run whose index entry is current keeps only what the list needs in memory; its details are read back
    /// from the entry when asked for (``RunCatalog/detailedSnapshot(id:)``) or when the file grows again.
    func dropDetailsIfFinished(_ tail: Tail) {
        guard index != nil, configuration.dropFinishedDetails, !tail.needsIndexing else { return }
        let id = tail.location.id
        let dropped = catalog.shared.withLock { s -> Bool in
            guard let run = s.runs[id], run.state.hasDetails, !run.isLive, run.state.lineCount == tail.lineCount else { return false }
            s.runs[id]!.state.dropDetails()
            return true
        }
        if dropped { detailsDropped += 1 }
    }

    /// Puts a run's details back (from its index entry, else by folding its file up to where the catalog is), before
    /// new lines are folded in. False if neither works.
    func restoreDetails(_ tail: Tail) -> Bool {
        let id = tail.location.id
        guard let device = tail.device, let inode = tail.inode else { return false }
        var state: RunState?
        if let index, let entry = try? index.load(id: id), entry.file == tail.location.file, entry.device == device, entry.inode == inode,
            entry.offset == tail.splitter.lineStart, entry.state.lineCount == tail.lineCount
        {
            state = entry.state
        } else {
            state = try? EventFileReader.foldState(
                file: tail.location.file, device: device, inode: inode, lines: tail.lineCount, maxLineBytes: configuration.maxLineBytes
            )
        }
        guard let state, state.lineCount == tail.lineCount else {
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
