import Foundation
import RalphAPI
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fast scan of a run file: what the session list shows of the run (``RunSummary``), exactly as the fold would
/// have it, without folding.
///
/// One pass over the file splits it into lines as the fold does (``LineSplitter``: complete lines only, a line over
/// the limit malformed) and classifies each with ``EventLineScanner`` — blank, malformed or an event, and the few facts
/// the list needs — which gives the exact line, event and malformed counts and the replay checkpoints. The first
/// lines that carry a timestamp and a payload are decoded as the pass meets them (the run's start and task); for
/// the latest values the pass only remembers where the last line of each kind is (the last timestamp, the last
/// orchestrator record, the last one naming a hat, the last that ends or resumes the loop, the last that asks or answers
/// a question), and those few lines are read back and decoded afterwards (``RunFileScan+Summary.swift``).
///
/// The details (hat flow, iterations, tokens, …) are not computed: the catalog folds the file in the background
/// (``BackgroundFolds``) and adopts that fold, whose summary the scan's equals.
struct RunFileScan: Sendable {
    var summary = RunSummary()
    /// Byte offset of line `k * checkpointInterval + 1`, as the fold records them.
    var checkpoints = [0]
    /// Where the last complete line ends: where reading goes on (the fold's `splitter.lineStart`).
    var offset = 0
    var device: UInt64 = 0
    var inode: UInt64 = 0
    /// The file's first bytes and the bytes that end at ``offset``, as an index entry keeps them.
    var head: [UInt8] = []
    var end: [UInt8] = []

    enum ScanError: Error, Equatable, CustomStringConvertible {
        case unreadable(errno: Int32)
        /// The caller is stopping.
        case stopped
        /// A line read back is not the line the pass saw (the file was rewritten under the scan).
        case inconsistent(String)

        var description: String {
            switch self {
            case .unreadable(let code): "cannot read: \(String(cString: strerror(code)))"
            case .stopped: "stopped"
            case .inconsistent(let why): "the file changed while it was scanned: \(why)"
            }
        }
    }

    /// Where a line is: its number (id), its first byte and its length.
    struct LineRef: Equatable, Sendable {
        var line: Int
        var offset: Int
        var count: Int
    }

    /// The lines whose decoded events give the latest values (nil: there is no such line).
    struct Latest: Sendable {
        /// The last event with a timestamp.
        var timestamped: LineRef?
        /// The last orchestrator record.
        var record: LineRef?
        /// The last record naming the hat at work next.
        var namingHat: LineRef?
        /// The last `loop.terminate` or record (which clears an earlier termination).
        var ending: LineRef?
        /// The last `human.interact`, `human.response` or record (which clears an earlier question).
        var asking: LineRef?

        mutating func note(_ flags: LineFacts.Flags, at ref: LineRef) {
            if flags.contains(.ts) { timestamped = ref }
            if flags.contains(.record) {
                record = ref
                if flags.contains(.namesHat) { namingHat = ref }
            }
            if !flags.isDisjoint(with: [.terminate, .record]) { ending = ref }
            if !flags.isDisjoint(with: [.interact, .response, .record]) { asking = ref }
        }
    }

    /// Scans an open run file from its start (through every complete line there is). `stop` is asked between chunks.
    static func scan(fd: Int32, maxLineBytes: Int, buffers: Buffers? = nil, stop: () -> Bool = { false }) throws(ScanError) -> RunFileScan {
        let pool = buffers ?? Buffers()
        let buffer = pool.take()
        defer { pool.give(buffer) }
        return try scan(fd: fd, maxLineBytes: maxLineBytes, buffer: buffer, stop: stop)
    }

    private static func scan(fd: Int32, maxLineBytes: Int, buffer: UnsafeMutableRawBufferPointer, stop: () -> Bool) throws(ScanError) -> RunFileScan {
        guard let status = FileSystem.status(fd: fd) else { throw .unreadable(errno: errno) }
        var pass = Pass(maxLineBytes: maxLineBytes)
        var splitter = LineSplitter(offset: 0, maxLineBytes: maxLineBytes)
        while true {
            if stop() { throw .stopped }
            let n = FileSystem.pread(fd: fd, into: buffer, offset: splitter.offset)
            if n < 0 { throw .unreadable(errno: errno) }
            if n == 0 { break }
            splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { piece in
                pass.take(piece)
                return true
            }
        }
        if let problem = pass.problem { throw .inconsistent(problem) }
        var scan = RunFileScan(summary: pass.summary, checkpoints: pass.checkpoints, offset: splitter.lineStart, device: status.device, inode: status.inode)
        try scan.resolve(pass.latest, fd: fd)
        let edge = min(RunTail.headSize, scan.offset)
        scan.head = CatalogEngine.readHead(fd: fd, count: edge)
        guard scan.head.count == edge, let end = CatalogEngine.readBytes(fd: fd, count: min(RunIndexStore.tailSize, scan.offset), endingAt: scan.offset) else {
            throw .inconsistent("its first or last bytes cannot be read back")
        }
        scan.end = end
        return scan
    }

    static let chunkSize = 1 << 20

    /// Read buffers reused from file to file: a fresh megabyte for each of a thousand files costs the kernel a gigabyte
    /// of zeroed pages, more than a third of the scan's time.
    final class Buffers: Sendable {
        /// Addresses of free buffers of ``RunFileScan/chunkSize`` bytes (a buffer is used by one thread at a time).
        private let free = Mutex<[UInt]>([])

        init() {}

        deinit { free.withLock { $0.forEach { UnsafeMutableRawPointer(bitPattern: $0)?.deallocate() } } }

        func take() -> UnsafeMutableRawBufferPointer {
            if let address = free.withLock({ $0.popLast() }), let start = UnsafeMutableRawPointer(bitPattern: address) {
                return UnsafeMutableRawBufferPointer(start: start, count: RunFileScan.chunkSize)
            }
            return .allocate(byteCount: RunFileScan.chunkSize, alignment: 64)
        }

        func give(_ buffer: UnsafeMutableRawBufferPointer) {
            guard let start = buffer.baseAddress else { return }
            let address = UInt(bitPattern: start)
            free.withLock { $0.append(address) }
        }
    }

    /// The pass over the lines: counts, checkpoints, the start's values, and where the latest values are. Plain
    /// counters in the loop; the summary is made once at the end (``summary``).
    struct Pass {
        let maxLineBytes: Int
        var lines = 0
        var events = 0
        var malformed = 0
        var checkpoints = [0]
        var latest = Latest()
        /// The start's values, from the first events that have them (as ``RunState`` takes them).
        var start = Start()
        var problem: String?

        struct Start {
            var wantsTime = true
            var wantsTask = true
            var ts: String?
            var date: Date?
            var taskName: String?
        }

        init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

        @inline(__always)
        mutating func take(_ piece: LineSplitter.Line) {
            lines += 1
            let line = lines
            switch piece {
            case .complete(let bytes, let offset):
                if (line - 1) % RunSnapshot.checkpointInterval == 0, line > 1 { checkpoints.append(offset) }
                let facts = EventLineScanner.scan(bytes)
                switch facts.kind {
                case .blank: break
                case .malformed: malformed += 1
                case .event:
                    events += 1
                    latest.note(facts.flags, at: LineRef(line: line, offset: offset, count: bytes.count))
                    if (start.wantsTime && facts.flags.contains(.ts)) || (start.wantsTask && facts.flags.contains(.payload)) { takeStart(bytes, line: line) }
                }
            case .oversized(_, let offset):
                if (line - 1) % RunSnapshot.checkpointInterval == 0, line > 1 { checkpoints.append(offset) }
                malformed += 1
            }
        }

        /// The first timestamp and the task name, from the first events that have them (as ``RunState`` takes them).
        mutating func takeStart(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) {
            guard case .event(let event) = EventLineDecoder.decode(bytes, id: line) else {
                problem = problem ?? "line \(line) is an event to the scanner but not to the decoder"
                return
            }
            if start.wantsTime, let ts = event.ts {
                start.ts = ts
                start.date = event.date
                start.wantsTime = false
            }
            if start.wantsTask, let text = event.payloadText {
                start.taskName = RunState.firstLine(of: text)
                start.wantsTask = start.taskName == nil
            }
        }

        /// The counts and the start's values.
        var summary: RunSummary {
            var summary = RunSummary()
            summary.lineCount = lines
            summary.eventCount = events
            summary.malformedCount = malformed
            summary.firstEventAt = start.ts
            summary.firstEventDate = start.date
            summary.taskName = start.taskName
            return summary
        }
    }
}
