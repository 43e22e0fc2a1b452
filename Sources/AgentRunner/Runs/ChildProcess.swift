import CProcessSupport
import Foundation
import RalphFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process started with `posix_spawn`: an argv array (never a shell), its own process group, a working
/// directory, stdin from `/dev/null`, and stdout+stderr written by the kernel straight into a log file.
///
/// Writing output to a file instead of a pipe means the child can never block on a full pipe however much it
/// prints, and it keeps running if the server restarts (a pipe would break and kill it with SIGPIPE).
/// A dedicated thread waits for the child (`waitpid`), so it never stays a zombie.
public final class ChildProcess: Sendable {
    public enum SpawnError: Error, CustomStringConvertible, Equatable {
        case notFound(String)
        case notExecutable(String)
        case logUnwritable(path: String, reason: String)
        case spawnFailed(command: String, reason: String)

        public var description: String {
            switch self {
            case .notFound(let command): "\(command) not found on PATH"
            case .notExecutable(let path): "\(path) is not an executable file"
            case .logUnwritable(let path, let reason): "cannot open the log file \(path): \(reason)"
            case .spawnFailed(let command, let reason): "cannot start \(command): \(reason)"
            }
        }
    }

    /// How a process ended.
    public enum Exit: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exit code \(code)"
            case .signaled(let signal): "signal \(ChildProcess.signalName(signal))"
            }
        }
    }

    public let pid: Int32
    public let executable: String
    public let arguments: [String]
    /// The exit once reaped, and who waits for it (by waiter number, so a waiter that gives up can leave).
    private let exitState = Mutex<(exit: Exit?, nextWaiter: Int, waiters: [Int: CheckedContinuation<Exit?, Never>])>((nil, 0, [:]))
    /// What ``whenExited(_:)`` asked to run on the reaper thread; nil once the child has been reaped.
    private let exitHandlers = Mutex<[@Sendable (Exit) -> Void]?>([])

    /// Starts `command` (a path, or a name looked up on `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's environment (the server passes its own, minus its secrets).
    ///   - logFile: created if needed; output is appended.
    public static func spawn(
        _ command: String, arguments: [String], workingDirectory: String, environment: [String: String], logFile: String
    ) throws(SpawnError) -> ChildProcess {
        let executable = try resolve(command, path: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
        let logFD = open(logFile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw .logUnwritable(path: logFile, reason: String(cString: strerror(errno))) }
        defer { close(logFD) }

        return try launch(executable: executable, arguments: arguments, workingDirectory: workingDirectory, environment: environment) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, logFD, 1)
            posix_spawn_file_actions_adddup2(&actions, logFD, 2)
        }
    }

    /// Starts `executable` (already resolved) in its own process group with default signal handling, in
    /// `workingDirectory`, and starts reaping it.
    ///
    /// - Parameter standardStreams: adds the file actions that set up descriptors 0, 1 and 2; every other descriptor
    ///   is closed in the child.
    static func launch(
        executable: String, arguments: [String], workingDirectory: String, environment: [String: String],
        standardStreams: (inout posix_spawn_file_actions_t) -> Void
    ) throws(SpawnError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        standardStreams(&actions)
        rm_spawn_file_actions_addchdir(&actions, workingDirectory)
        // Descriptors the server has open (sockets, watches) are not the child's business.
        _ = rm_spawn_file_actions_addclosefrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Own process group (so signals reach ralph and everything it starts), default signal handling, no
        // blocked signals inherited from the server.
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = [executable] + arguments
        let env = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let rc = withCStrings(argv) { argvPointers in
            withCStrings(env) { envPointers in
                posix_spawn(&pid, executable, &actions, &attributes, argvPointers, envPointers)
            }
        }
        guard rc == 0 else { throw .spawnFailed(command: executable, reason: String(cString: strerror(rc))) }
        let child = ChildProcess(pid: pid, executable: executable, arguments: arguments)
        child.startReaper()
        return child
    }

    private init(pid: pid_t, executable: String, arguments: [String]) {
        self.pid = pid
        self.executable = executable
        self.arguments = arguments
    }

    /// The exit, once the child has been reaped.
    public var exit: Exit? { exitState.withLock { $0.exit } }

    /// Waits (without blocking a thread) until the child has exited and been reaped; cancellation does not end it.
    public func waitForExit() async -> Exit {
        let waiter = newWaiter()
        let exit = await withCheckedContinuation { register(waiter, $0, honouringCancellation: false) }
        // Only a cancellable wait is ever answered nil, and this one has no cancellation handler.
        guard let exit else { preconditionFailure("a non-cancellable wait for pid \(pid) was answered without an exit") }
        return exit
    }

    /// The exit if the child ends within `timeout`, otherwise nil. Cancelling the calling task ends the wait too.
    public func waitForExit(timeout: Duration) async -> Exit? {
        await withDeadline(timeout) { await self.waitForExitUnlessCancelled() }
    }

    /// The exit, or nil as soon as the calling task is cancelled.
    public func waitForExitUnlessCancelled() async -> Exit? {
        let waiter = newWaiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { register(waiter, $0, honouringCancellation: true) }
        } onCancel: {
            let continuation = exitState.withLock { $0.waiters.removeValue(forKey: waiter) }
            continuation?.resume(returning: nil)
        }
    }

    /// Runs `handler` with the exit once the child has been reaped: on the reaper thread, or at once (on the calling
    /// thread) when it already has been. For work that must follow the exit whoever waits: no task is needed for it,
    /// so nothing is left running to own. `handler` must be quick and must not block.
    public func whenExited(_ handler: @escaping @Sendable (Exit) -> Void) {
        let runNow = exitHandlers.withLock { handlers -> Bool in
            guard handlers != nil else { return true }
            handlers!.append(handler)
            return false
        }
        // The handlers are taken (and set to nil) only after the exit is recorded.
        if runNow, let exit { handler(exit) }
    }

    private func newWaiter() -> Int {
        exitState.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
    }

    /// Answers at once when the child is already reaped (or, if asked, the task already cancelled); else keeps
    /// `continuation` for the reaper.
    private func register(_ waiter: Int, _ continuation: CheckedContinuation<Exit?, Never>, honouringCancellation: Bool) {
        let now = exitState.withLock { state -> Exit?? in
            if let exit = state.exit { return .some(exit) }
            if honouringCancellation, Task.isCancelled { return .some(nil) }
            state.waiters[waiter] = continuation
            return .none
        }
        if let now { continuation.resume(returning: now) }
    }

    private func startReaper() {
        let thread = Thread { [self] in
            var status: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(pid, &status, 0)
            } while result < 0 && errno == EINTR
            let exit: Exit = Self.signalNumber(status).map { .signaled($0) } ?? .exited((status >> 8) & 0xFF)
            let waiters = exitState.withLock { state -> [CheckedContinuation<Exit?, Never>] in
                state.exit = exit
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            let handlers = exitHandlers.withLock { handlers in
                defer { handlers = nil }
                return handlers ?? []
            }
            handlers.forEach { $0(exit) }
            waiters.forEach { $0.resume(returning: exit) }
        }
        thread.name = "ralph-mobile.reaper.\(pid)"
        thread.start()
    }

    /// The terminating signal of a `waitpid` status, nil when the process exited normally.
    static func signalNumber(_ status: Int32) -> Int32? {
        let signal = status & 0x7F
        return signal != 0 && signal != 0x7F ? signal : nil
    }

    /// Finds `command` on `path` unless it contains a slash.
    static func resolve(_ command: String, path: String) throws(SpawnError) -> String {
        func isExecutable(_ p: String) -> Bool { FileSystem.status(p)?.isRegularFile == true && access(p, X_OK) == 0 }
        if command.contains("/") {
            guard isExecutable(command) else {
                throw FileSystem.status(command) == nil ? .notFound(command) : .notExecutable(command)
            }
            return command
        }
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = dir + "/" + command
            if isExecutable(candidate) { return candidate }
        }
        throw .notFound(command)
    }

    public static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGKILL: "SIGKILL"
        case SIGINT: "SIGINT"
        case SIGSTOP: "SIGSTOP"
        case SIGCONT: "SIGCONT"
        case SIGHUP: "SIGHUP"
        case SIGPIPE: "SIGPIPE"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        default: "signal \(signal)"
        }
    }
}

/// Calls `body` with a NULL-terminated C array of the strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
