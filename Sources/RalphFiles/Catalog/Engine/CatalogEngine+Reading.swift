import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading what was appended to run files, folding it in and announcing it.
extension CatalogEngine {
    func pollSizes() {
        for (id, tail) in tails {
            let status = FileSystem.status(tail.location.file)
            if tail.known.changed(device: status?.device, inode: status?.inode, size: status?.size) { dirtyRuns.insert(id) }
        }
    }

    func readDirtyRuns() {
        let ids = dirtyRuns
        dirtyRuns.removeAll()
        for id in ids {
            guard let tail = tails[id] else { continue }
            switch readNew(tail, announce: true) {
            case .missing: removeRun(id)
            case .more: dirtyRuns.insert(id)
            case .done, .failed: break
            }
        }
    }

    enum ReadOutcome { case done, more, missing, failed }

    /// Reads what was appended since the last read, folds it in, and tells the observers (when `announce`).
    ///
    /// In steps: open the file, decide from what is known about it whether to continue or start over (``RunTail``),
    /// fold the appended lines chunk by chunk, note the bytes the index checks, then announce.
    func readNew(_ tail: Tail, announce: Bool) -> ReadOutcome {
        // Its fold is being made from the lines scanned: what follows them is read once it is adopted (a file that is
        // gone is noticed now, though).
        if tail.awaitingFold {
            if FileSystem.status(tail.location.file) == nil, errno == ENOENT || errno == ENOTDIR { return .missing }
            return .done
        }
        let fd = open(tail.location.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            logger.warning("cannot open run file", metadata: ["file": "\(tail.location.file)", "errno": "\(errno)"])
            return .failed
        }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { return .failed }
        let decision = decideReadStart(tail, fd: fd, status: status)
        if case .reset(let reason) = decision { startOver(tail, because: reason) }
        recordIdentity(tail, status: status)
        var appended = AppendedEvents(announce: announce && decision == .proceed)
        let outcome = foldAppended(tail, fd: fd, into: &appended)
        tail.known.lastSize = status.size
        noteBoundaryBytes(tail, fd: fd)
        if decision != .proceed {
            if let snapshot = catalog.snapshot(id: tail.location.id) { catalog.announce(.reset(snapshot)) }
        } else {
            appended.flush(self)
        }
        return outcome
    }

    /// Continue or start over: the file's identity, size and first bytes (``RunTail/decide(_:)``), then — when new
    /// lines are to be folded into a run whose details were dropped — whether those details can be read back.
    func decideReadStart(_ tail: Tail, fd: Int32, status: FileSystem.Status) -> RunTail.Decision {
        let observed = RunTail.Observation(
            device: status.device, inode: status.inode, size: status.size,
            head: tail.known.head.isEmpty ? [] : Self.readHead(fd: fd, count: tail.known.head.count)
        )
        let decision = tail.known.decide(observed)
        guard decision == .proceed, tail.known.grows(observed), hasDroppedDetails(id: tail.location.id) else { return decision }
        // Neither the index nor the file gives back the state folded so far: start over rather than fold on into a
        // state without its details.
        return restoreDetails(tail) ? .proceed : .reset(.detailsLost)
    }

    /// Forgets the run's fold: the file is read again from its first byte, under a new generation (ids restart).
    func startOver(_ tail: Tail, because reason: RunTail.ResetReason) {
        let id = tail.location.id
        logger.info("run file \(reason); reading it again from the start", metadata: ["id": "\(id)"])
        tail.known.restart()
        let generation = tail.known.generation
        catalog.shared.withLock { s in
            guard var run = s.runs[id] else { return }
            run.adopt(RunState())
            run.checkpoints = [0]
            run.generation = generation
            s.runs[id] = run
        }
    }

    /// The file the fold now comes from (readers check replay positions against it).
    func recordIdentity(_ tail: Tail, status: FileSystem.Status) {
        let id = tail.location.id
        tail.known.device = status.device
        tail.known.inode = status.inode
        catalog.shared.withLock { s in
            s.runs[id]?.device = status.device
            s.runs[id]?.inode = status.inode
        }
    }

    /// Reads and folds chunks from where the last read stopped, up to ``maxBytesPerRead`` (`.more`: there may be more).
    func foldAppended(_ tail: Tail, fd: Int32, into appended: inout AppendedEvents) -> ReadOutcome {
        var budget = Self.maxBytesPerRead
        while true {
            let n = FileSystem.pread(fd: fd, into: buffer, offset: tail.known.offset)
            if n < 0 {
                logger.warning("cannot read run file", metadata: ["file": "\(tail.location.file)", "errno": "\(errno)"])
                return .failed
            }
            if n == 0 { return .done }
            // A file that grew after it was observed: dropped details come back before anything is folded into them
            // (if they cannot, nothing is consumed; the next read decides to start over).
            if hasDroppedDetails(id: tail.location.id), !restoreDetails(tail) { return .more }
            let (lines, checkpoints) = split(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), of: tail)
            if !lines.isEmpty {
                fold(lines, checkpoints: checkpoints, into: tail.location.id)
                appended.collect(lines, of: tail.location.id, engine: self)
            }
            budget -= n
            if budget <= 0 || isStopping { return .more }
        }
    }

    /// Splits a chunk into decoded lines (numbered on from the tail's count), with the checkpoints they start.
    func split(_ chunk: UnsafeRawBufferPointer, of tail: Tail) -> (lines: [DecodedLine], checkpoints: [Int]) {
        var lines: [DecodedLine] = []
        var checkpoints: [Int] = []
        var lineNumber = tail.known.lineCount
        let maxLineBytes = configuration.maxLineBytes
        tail.known.splitter.feed(chunk) { piece in
            lineNumber += 1
            lines.append(EventFileReader.decode(piece, line: lineNumber, maxLineBytes: maxLineBytes, checkpoints: &checkpoints))
            return true
        }
        tail.known.lineCount = lineNumber
        return (lines, checkpoints)
    }

    /// Folds lines into the run's published state (whose details ``decideReadStart`` made sure are in memory).
    func fold(_ lines: [DecodedLine], checkpoints: [Int], into id: String) {
        let start = ContinuousClock.now
        defer {
            if let observer = configuration.foldObserver {
                var malformed = 0
                for case .malformed in lines { malformed += 1 }
                observer(lines.count, malformed, ContinuousClock.now - start)
            }
        }
        let folded = catalog.shared.withLock { s -> Bool in
            // Folded in place, in the table (one lookup per chunk, not per line; the state is uniquely held).
            guard s.runs.contains(id) else { return true }
            guard s.runs[id]!.fold(lines) else { return false }
            s.runs[id]!.checkpoints.append(contentsOf: checkpoints)
            return true
        }
        if !folded {
            // Reads restore dropped details before folding (see foldAppended), so this is a bug if it shows.
            logger.error("lines read into a run whose details are not in memory; they were not folded", metadata: ["id": "\(id)"])
        }
    }

    /// The file's first bytes (kept until complete) and, with an index, the bytes that end at the last line start:
    /// what tells later whether the file is still the one read.
    func noteBoundaryBytes(_ tail: Tail, fd: Int32) {
        if let count = tail.known.headBytesWanted { tail.known.head = Self.readHead(fd: fd, count: count) }
        guard index != nil else { return }
        let lineStart = tail.known.splitter.lineStart
        tail.known.end = Self.readBytes(fd: fd, count: min(RunIndexStore.tailSize, lineStart), endingAt: lineStart) ?? []
    }

    /// The events one read appended, announced in batches so a huge catch-up does not build one giant change.
    struct AppendedEvents {
        let announce: Bool
        var id = ""
        var events: [RalphEvent] = []
        static let batch = 4096

        init(announce: Bool) { self.announce = announce }

        mutating func collect(_ lines: [DecodedLine], of id: String, engine: CatalogEngine) {
            guard announce else { return }
            self.id = id
            for case .event(let event) in lines { events.append(event) }
            if events.count >= Self.batch { flush(engine) }
        }

        mutating func flush(_ engine: CatalogEngine) {
            guard !events.isEmpty else { return }
            engine.announceAppended(id, events: events)
            events.removeAll(keepingCapacity: true)
        }
    }

    static func readHead(fd: Int32, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: 0) }
        return n == count ? bytes : []
    }

    func announceAppended(_ id: String, events: [RalphEvent]) {
        guard let snapshot = catalog.snapshot(id: id) else { return }
        catalog.announce(.appended(snapshot, events: events))
    }
}
