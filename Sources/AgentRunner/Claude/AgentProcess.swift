import CProcessSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An agent CLI (e.g. `claude -p --input-format stream-json …`) running with pipes on stdin, stdout and stderr.
///
/// Started like ``ChildProcess``: an argv array (never a shell), its own process group, default signal handling,
/// every descriptor above 2 closed in the child, and a thread that reaps it. Blocking I/O runs on dedicated threads,
/// never on the Swift concurrency pool:
/// - stdout is read line by line into ``lines``;
/// - stderr is drained at the same time (a full pipe would stall the child) and its last 8 KiB kept in
///   ``stderrTail``;
/// - ``send(_:)`` queues a line for a writer thread, so a child that does not read never blocks the caller. Writes
///   after the child closed its stdin fail quietly (SIGPIPE is ignored in this process from the first start on).
public final class AgentProcess: Sendable {
    /// How much of stderr ``stderrTail`` keeps.
    public static let stderrTailBytes = 8 << 10

    /// Complete stdout lines without their line ending (a trailing `\r` is removed), in order; a partial last line is
    /// delivered at end of file, then the stream finishes. Lines longer than 16 MiB arrive as
    /// ``ClaudeLineSplitter/oversizedMarker(byteCount:)``. Single consumer; lines are buffered until read.
    public let lines: AsyncStream<[UInt8]>

    private let child: ChildProcess
    private let writer: LineWriter
    private let stderr = Mutex<[UInt8]>([])
    private let stderrDrained = Latch<Bool>()
    private let exited = Latch<ChildProcess.Exit>()

    /// The process id, which is also its process group id.
    public var pid: Int32 { child.pid }
    /// The resolved executable path.
    public var executable: String { child.executable }
    /// The exit, once the process has been reaped.
    public var exit: ChildProcess.Exit? { child.exit }

    /// The last ``stderrTailBytes`` of stderr (complete once ``waitForExit()`` has returned).
    public var stderrTail: String {
        let bytes = stderr.withLock { $0 }
        // The cut may fall inside a UTF-8 sequence: drop its continuation bytes.
        return String(decoding: bytes.drop { $0 & 0xC0 == 0x80 }, as: UTF8.self)
    }

    /// Starts `executable` (a path, or a name looked up on the `PATH` of `environment`).
    public static func start(
        executable: String, arguments: [String], workingDirectory: String, environment: [String: String]
    ) throws(ChildProcess.SpawnError) -> AgentProcess {
        _ = ignoreSIGPIPE
        let resolved = try ChildProcess.resolve(executable, path: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
        let stdin = try makePipe(for: resolved)
        let stdout: (read: Int32, write: Int32)
        let stderr: (read: Int32, write: Int32)
        do {
            stdout = try makePipe(for: resolved)
        } catch {
            closeAll([stdin.read, stdin.write])
            throw error
        }
        do {
            stderr = try makePipe(for: resolved)
        } catch {
            closeAll([stdin.read, stdin.write, stdout.read, stdout.write])
            throw error
        }
        let child: ChildProcess
        do {
            child = try ChildProcess.launch(
                executable: resolved, arguments: arguments, workingDirectory: workingDirectory, environment: environment
            ) { actions in
                posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
                posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
                posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
            }
        } catch {
            closeAll([stdin.read, stdin.write, stdout.read, stdout.write, stderr.read, stderr.write])
            throw error
        }
        // The child's ends now live in the child only, so end of file arrives when it (and its descendants) close them.
        closeAll([stdin.read, stdout.write, stderr.write])
        return AgentProcess(child: child, stdin: stdin.write, stdout: stdout.read, stderr: stderr.read)
    }

    private init(child: ChildProcess, stdin: Int32, stdout: Int32, stderr: Int32) {
        self.child = child
        let (lines, continuation) = AsyncStream<[UInt8]>.makeStream()
        self.lines = lines
        writer = LineWriter(fd: stdin, name: "ralph-mobile.agent-stdin.\(child.pid)")
        startStdoutReader(fd: stdout, continuation: continuation)
        startStderrReader(fd: stderr)
        // On the reaper thread, so no task is left to own: nothing reads stdin any more, so the writer thread may end.
        child.whenExited { [writer, exited] exit in
            writer.finish()
            exited.open(exit)
        }
    }

    /// Queues `line` (which should end with `\n`) for the child's stdin. Never blocks; ignored after
    /// ``closeStdin()`` and dropped quietly once the child no longer reads.
    public func send(_ line: [UInt8]) {
        writer.send(line)
    }

    /// Closes the child's stdin once the lines queued before have been written (end of input for the agent).
    public func closeStdin() {
        writer.finish()
    }

    /// Waits until the process has exited and been reaped, and stderr has been drained (for at most a second after the
    /// exit, in case a descendant still holds it open).
    public func waitForExit() async -> ChildProcess.Exit {
        let exit = await child.waitForExit()
        _ = await stderrDrained.wait(timeout: .seconds(1))
        return exit
    }

    /// Stops the process: closes stdin, sends SIGTERM to its process group, and SIGKILL if it is still running after
    /// `grace`. Signals are only sent while the process has not been reaped (its pid could be reused afterwards).
    @discardableResult
    public func terminate(grace: Duration = .seconds(3)) async -> ChildProcess.Exit {
        closeStdin()
        signalGroup(SIGTERM)
        if await exited.wait(timeout: grace) == nil {
            signalGroup(SIGKILL)
        }
        return await waitForExit()
    }

    /// Sends `signal` to the process group, unless the process has already been reaped.
    public func signalGroup(_ signal: Int32) {
        guard child.exit == nil else { return }
        kill(-child.pid, signal)
    }

    private func startStdoutReader(fd: Int32, continuation: AsyncStream<[UInt8]>.Continuation) {
        let thread = Thread {
            var splitter = ClaudeLineSplitter()
            readUntilEOF(fd) { chunk in
                for line in splitter.feed(chunk) { continuation.yield(line) }
            }
            for line in splitter.finish() { continuation.yield(line) }
            continuation.finish()
        }
        thread.name = "ralph-mobile.agent-stdout.\(child.pid)"
        thread.start()
    }

    private func startStderrReader(fd: Int32) {
        let thread = Thread { [self] in
            readUntilEOF(fd) { chunk in
                stderr.withLock { tail in
                    tail.append(contentsOf: chunk)
                    if tail.count > Self.stderrTailBytes { tail.removeFirst(tail.count - Self.stderrTailBytes) }
                }
            }
            stderrDrained.open(true)
        }
        thread.name = "ralph-mobile.agent-stderr.\(child.pid)"
        thread.start()
    }

    /// Ignoring SIGPIPE makes a write to a pipe whose reader is gone fail with EPIPE instead of killing the server.
    /// Children get default signal handling back (``ChildProcess`` spawns with `POSIX_SPAWN_SETSIGDEF`).
    private static let ignoreSIGPIPE: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// A pipe whose both ends are close-on-exec.
    private static func makePipe(for command: String) throws(ChildProcess.SpawnError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard rm_pipe_cloexec(&fds) == 0 else { throw .spawnFailed(command: command, reason: "pipe: " + String(cString: strerror(errno))) }
        return (fds[0], fds[1])
    }

    private static func closeAll(_ fds: [Int32]) {
        fds.forEach { close($0) }
    }
}

/// Reads `fd` until end of file (or an error), passing each chunk to `body`, then closes it. Blocking: call it on a
/// dedicated thread.
private func readUntilEOF(_ fd: Int32, _ body: (UnsafeRawBufferPointer) -> Void) {
    let capacity = 64 << 10
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
    defer {
        buffer.deallocate()
        close(fd)
    }
    while true {
        let count = read(fd, buffer, capacity)
        if count > 0 {
            body(UnsafeRawBufferPointer(start: buffer, count: count))
        } else if count == 0 || errno != EINTR {
            return
        }
    }
}

/// The child's stdin: lines are queued by any caller and written, in order, by one dedicated thread, which closes the
/// descriptor when asked and then ends.
private final class LineWriter: Sendable {
    private struct State {
        var queue: [[UInt8]] = []
        var closing = false
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    init(fd: Int32, name: String) {
        let thread = Thread { [self] in
            var broken = false
            while true {
                wakeUp.wait()
                let (batch, closing) = state.withLock { state in
                    defer { state.queue = [] }
                    return (state.queue, state.closing)
                }
                for line in batch where !broken {
                    broken = !writeAll(fd, line)
                }
                if closing {
                    close(fd)
                    return
                }
            }
        }
        thread.name = name
        thread.start()
    }

    func send(_ line: [UInt8]) {
        let accepted = state.withLock { state in
            guard !state.closing else { return false }
            state.queue.append(line)
            return true
        }
        if accepted { wakeUp.signal() }
    }

    /// Closes the descriptor after the queued lines. Idempotent.
    func finish() {
        let first = state.withLock { state in
            defer { state.closing = true }
            return !state.closing
        }
        if first { wakeUp.signal() }
    }
}

/// Writes all of `bytes`; false when the descriptor fails (EPIPE once the reader is gone).
private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}

/// A value that is set once and can be awaited, with cancellation and timeouts.
final class Latch<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Sets the value (the first time only) and wakes every waiter.
    func open(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume(returning: value) }
    }

    /// The value once set; nil if the task is cancelled first.
    func wait() async -> Value? {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let ready = state.withLock { state -> Value?? in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    /// The value if it is set within `timeout`, otherwise nil.
    func wait(timeout: Duration) async -> Value? {
        await withDeadline(timeout) { await self.wait() }
    }
}
