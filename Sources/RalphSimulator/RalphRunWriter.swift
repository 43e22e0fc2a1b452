import Foundation
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one ralph run into a workspace exactly as ralph lays it out:
///
/// - `.ralph/events-YYYYMMDD-HHMMSS.jsonl`, appended one complete line per `write(2)`;
/// - `.ralph/current-events` naming it (relative to the workspace), `.ralph/current-loop-id`;
/// - `.ralph/loop.lock` with `{"pid","started","prompt"}`, exclusively `flock`ed while the run lasts;
/// - `.ralph/agent/scratchpad.md`, deleted when the run starts and appended to during it;
/// - a final `loop.terminate` record, after which the lock is released.
///
/// Blocking file I/O: run it on its own thread (the demo) or in its own process (the ralph test double).
public final class RalphRunWriter {
    public enum WriterError: Error, CustomStringConvertible {
        case lockHeld(String)
        case io(String)

        public var description: String {
            switch self {
            case .lockHeld(let path): "another loop holds \(path)"
            case .io(let message): message
            }
        }
    }

    public let workspace: String
    /// Where ralph's files are in ``workspace``.
    public let layout: RalphLayout
    public var stateDirectory: String { layout.stateDirectory }
    public private(set) var eventsFile: String = ""
    public private(set) var startedAt = Date()
    private var lockFD: Int32 = -1

    public init(workspace: String) throws {
        self.workspace = workspace
        self.layout = RalphLayout(workspace: workspace)
        do {
            try FileManager.default.createDirectory(atPath: layout.agentDirectory, withIntermediateDirectories: true)
        } catch {
            throw WriterError.io("cannot create \(layout.agentDirectory): \(error)")
        }
    }

    deinit { releaseLock() }

    /// Starts a run: takes the loop lock, creates the events file and points `current-events` at it.
    public func begin(prompt: String, at date: Date = Date()) throws {
        startedAt = date
        let lockPath = layout.loopLock
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriterError.io("cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw WriterError.lockHeld(lockPath)
        }
        lockFD = fd
        let lockInfo = JSONValue.object(
            JSONObject([
                ("pid", .int(Int(getpid()))), ("started", .string(Timestamp.format(date))), ("prompt", .string(String(prompt.prefix(100)))),
            ])
        )
        _ = ftruncate(fd, 0)
        let lockBytes = JSONWriter.bytes(lockInfo)
        _ = lockBytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }

        let stamp = Self.fileStamp(date)
        var name = RalphLayout.runFileName(stamp: stamp)
        var suffix = 1
        while FileManager.default.fileExists(atPath: stateDirectory + "/" + name) {
            // Two runs in the same second: keep both files.
            suffix += 1
            name = RalphLayout.runFileName(stamp: "\(stamp)-\(suffix)")
        }
        eventsFile = stateDirectory + "/" + name
        guard FileManager.default.createFile(atPath: eventsFile, contents: nil) else { throw WriterError.io("cannot create \(eventsFile)") }
        try? FileManager.default.removeItem(atPath: layout.scratchpad)
        try writeAtomically(RalphLayout.stateDirectoryName + "/" + name, to: layout.currentEvents)
        try writeAtomically("primary-\(stamp)", to: layout.currentLoopID)
    }

    /// Appends an orchestrator record.
    public func record(topic: String, payload: String, iteration: Int, hat: String, triggered: String? = nil, blockedCount: Int? = nil) throws {
        try append(EventFileAppender.recordLine(topic: topic, payload: payload, iteration: iteration, hat: hat, triggered: triggered, blockedCount: blockedCount))
    }

    /// Appends a line as `ralph emit` writes it.
    public func emit(topic: String, payload: JSONValue?) throws {
        try append(EventFileAppender.emitLine(topic: topic, payload: payload))
    }

    func append(_ line: [UInt8]) throws {
        do {
            try EventFileAppender.append(line: line, to: eventsFile)
        } catch {
            throw WriterError.io(error.description)
        }
    }

    /// Appends to `.ralph/agent/scratchpad.md`.
    public func appendScratchpad(_ text: String) {
        let path = layout.scratchpad
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
    }

    /// Writes the `loop.terminate` record and releases the loop lock.
    public func terminate(reason: String, status: String, iterations: Int, exitCode: Int, at date: Date = Date()) throws {
        let payload = """
            ## Reason
            \(reason)

            ## Status
            \(status)

            ## Summary
            - Iterations: \(iterations)
            - Duration: \(Self.formatDuration(date.timeIntervalSince(startedAt)))
            - Exit code: \(exitCode)
            """
        try record(topic: "loop.terminate", payload: payload, iteration: iterations, hat: "loop")
        releaseLock()
    }

    /// Lines appended to the events file after byte `offset`, and the new end offset.
    public func lines(after offset: Int) -> (lines: [RalphEvent], end: Int) {
        guard let data = FileManager.default.contents(atPath: eventsFile), data.count > offset else { return ([], offset) }
        var events: [RalphEvent] = []
        var end = offset
        var splitter = LineSplitter(offset: offset)
        _ = data.withUnsafeBytes { raw in
            splitter.feed(UnsafeRawBufferPointer(rebasing: raw[offset...])) { piece in
                if case .complete(let bytes, _) = piece, case .event(let event) = EventLineDecoder.decode(bytes, id: 0) { events.append(event) }
                return true
            }
        }
        end = splitter.lineStart
        return (events, end)
    }

    /// Current size of the events file.
    public var eventsFileSize: Int { FileSystem.status(eventsFile)?.size ?? 0 }

    public func releaseLock() {
        if lockFD >= 0 {
            flock(lockFD, LOCK_UN)
            close(lockFD)
            lockFD = -1
        }
    }

    func writeAtomically(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WriterError.io("cannot write \(path): \(error)")
        }
    }

    static func fileStamp(_ date: Date) -> String {
        let iso = Timestamp.format(date)  // 2026-02-05T08:39:22.067Z
        let digits = iso.prefix(19).filter(\.isNumber)
        return String(digits.prefix(8)) + "-" + String(digits.dropFirst(8))
    }

    /// ralph's duration format: `1h 2m 3s`, `21m 0s`, `45s`.
    static func formatDuration(_ seconds: TimeInterval) -> String {
        let total = max(0, Int(seconds))
        let h = total / 3600
        let m = total / 60 % 60
        let s = total % 60
        if h > 0 { return "\(h)h \(m)m \(s)s" }
        if m > 0 { return "\(m)m \(s)s" }
        return "\(s)s"
    }
}
