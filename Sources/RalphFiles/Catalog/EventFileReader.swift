#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads events back from a run file, for replay. Blocking: call it from a thread pool.
public enum EventFileReader {
    /// A line boundary in a run file.
    public struct Position: Sendable, Equatable {
        public var file: String
        /// Identity of the file the position belongs to; a different file at the same path is an error.
        public var device: UInt64
        public var inode: UInt64
        public var generation: Int
        /// Number (id) of the line that starts at ``offset``.
        public var nextLine: Int
        public var offset: Int
    }

    public enum ReadError: Error, Equatable, CustomStringConvertible {
        /// The file was replaced or truncated since the position was taken; ids no longer mean the same lines.
        case fileChanged
        case unreadable(path: String, errno: Int32)

        public var description: String {
            switch self {
            case .fileChanged: "the run file changed while it was being read"
            case .unreadable(let path, let code): "cannot read \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    public struct Batch: Sendable {
        /// Events with ids in (after, through], in order.
        public var events: [RalphEvent]
        public var next: Position
        /// True once line `through` has been read.
        public var done: Bool
    }

    /// The number of the line starting at byte `offset`, counting newlines from `position` (a line start at or
    /// before it).
    public static func lineNumber(from position: Position, lineStartingAt offset: Int) throws(ReadError) -> Int {
        guard offset >= position.offset else { throw .fileChanged }
        let fd = open(position.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: position.file, errno: errno) }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { throw .unreadable(path: position.file, errno: errno) }
        guard status.device == position.device, status.inode == position.inode, status.size >= offset else { throw .fileChanged }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var line = position.nextLine
        var at = position.offset
        while at < offset {
            let want = min(buffer.count, offset - at)
            let n = FileSystem.pread(fd: fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), offset: at)
            guard n > 0 else { throw .fileChanged }
            for i in 0..<n where buffer[i] == 0x0A { line += 1 }
            at += n
        }
        return line
    }

    /// Decodes one piece of a run file as line number `line`, noting the checkpoint it starts (the catalog's rule:
    /// the byte offset of every line `k * checkpointInterval + 1`).
    @inline(__always)
    static func decode(_ piece: LineSplitter.Line, line: Int, maxLineBytes: Int, checkpoints: inout [Int]) -> DecodedLine {
        switch piece {
        case .complete(let bytes, let start):
            if (line - 1) % RunSnapshot.checkpointInterval == 0, line > 1 { checkpoints.append(start) }
            return EventLineDecoder.decode(bytes, id: line)
        case .oversized(let count, let start):
            if (line - 1) % RunSnapshot.checkpointInterval == 0, line > 1 { checkpoints.append(start) }
            return .malformed(reason: "line of \(count) bytes is longer than \(maxLineBytes)")
        }
    }

    /// A fold of a run file from its start: the state, its checkpoints and where the last complete line ends.
    struct Fold {
        var state = RunState()
        var checkpoints = [0]
        var splitter: LineSplitter
    }

    /// Folds an open run file from its start through line `lines` (nil: every complete line), exactly as the catalog
    /// does. `stop` is asked between chunks (a caller that is shutting down gets what was folded so far).
    static func fold(fd: Int32, lines limit: Int?, maxLineBytes: Int, stop: () -> Bool = { false }) throws(ReadError) -> Fold {
        var splitter = LineSplitter(offset: 0, maxLineBytes: maxLineBytes)
        var state = RunState()
        var checkpoints = [0]
        if limit == 0 { return Fold(state: state, checkpoints: checkpoints, splitter: splitter) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var line = 0
        var reachedLimit = false
        while !reachedLimit, !stop() {
            let n = FileSystem.pread(fd: fd, into: buffer, offset: splitter.offset)
            if n < 0 { throw .unreadable(path: "fd \(fd)", errno: errno) }
            if n == 0 {
                if limit != nil { throw .fileChanged }  // fewer lines than the caller knows of
                break
            }
            splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { piece in
                line += 1
                state.apply(decode(piece, line: line, maxLineBytes: maxLineBytes, checkpoints: &checkpoints))
                if let limit, line >= limit {
                    reachedLimit = true
                    return false
                }
                return true
            }
        }
        return Fold(state: state, checkpoints: checkpoints, splitter: splitter)
    }

    /// Folds the file's first `lines` lines into a fresh state, exactly as the catalog does: the state of a run whose
    /// details were dropped from memory, rebuilt when its index entry cannot be used.
    public static func foldState(
        file: String, device: UInt64, inode: UInt64, lines: Int, maxLineBytes: Int = 64 << 20
    ) throws(ReadError) -> RunState {
        guard lines > 0 else { return RunState() }
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: file, errno: errno) }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { throw .unreadable(path: file, errno: errno) }
        guard status.device == device, status.inode == inode else { throw .fileChanged }
        return try fold(fd: fd, lines: lines, maxLineBytes: maxLineBytes).state
    }

    /// Reads roughly `maxBytes` of the file from `position`, returning the events whose ids are in
    /// `(after, through]`. Call again with `next` until `done`.
    public static func read(
        from position: Position, after: Int, through: Int, maxBytes: Int = 512 * 1024, maxLineBytes: Int = 64 << 20
    ) throws(ReadError) -> Batch {
        if position.nextLine > through { return Batch(events: [], next: position, done: true) }
        let fd = open(position.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: position.file, errno: errno) }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { throw .unreadable(path: position.file, errno: errno) }
        guard status.device == position.device, status.inode == position.inode else { throw .fileChanged }

        var splitter = LineSplitter(offset: position.offset, maxLineBytes: maxLineBytes)
        var line = position.nextLine
        var events: [RalphEvent] = []
        var done = false
        let chunkSize = min(max(maxBytes, 4096), 4 << 20)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var readOffset = position.offset
        var bytesRead = 0
        while !done {
            let n = FileSystem.pread(fd: fd, into: buffer, offset: readOffset)
            if n < 0 { throw .unreadable(path: position.file, errno: errno) }
            if n == 0 {
                // The file ends before `through`: it was truncated under us.
                throw .fileChanged
            }
            let linesBefore = line
            let consumed = splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { piece in
                if line > after {
                    switch piece {
                    case .complete(let bytes, _):
                        if case .event(let event) = EventLineDecoder.decode(bytes, id: line) { events.append(event) }
                    case .oversized:
                        break
                    }
                }
                line += 1
                if line > through {
                    done = true
                    return false
                }
                return true
            }
            readOffset += consumed
            bytesRead += consumed
            if bytesRead >= maxBytes && line > linesBefore { break }
        }
        let next = Position(
            file: position.file, device: position.device, inode: position.inode, generation: position.generation,
            nextLine: line, offset: splitter.lineStart
        )
        return Batch(events: events, next: next, done: done)
    }
}
