import AgentRunner
import Foundation
import Logging
import Synchronization

/// Runs the `--demo` loop in a child process of its own, the way a real ralph runs next to the server.
///
/// The demo holds its run's `loop.lock`, so pause, resume and stop signal its process group — never the server. Stopped
/// from a client (or ended by a crash), it starts again after a rest, going on with the next task; it exits by itself
/// if the server dies, and is stopped (SIGTERM, then SIGKILL) when the server shuts down.
final class DemoProcess: Sendable {
    struct Options: Sendable {
        /// The command that runs the demo loop (`ralph-mobile-server demo-loop`).
        var command: [String]
        var workspace: String
        var pace: Double
        var questionTimeout: Double
        var restBetweenRuns: Double
        var logFile: String
    }

    let options: Options
    let logger: Logger
    private let state = Mutex<(child: ChildProcess?, stopping: Bool)>((nil, false))
    /// Wakes the rest between runs when the demo is stopped.
    private let stopped = StopLatch()

    init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// The demo loop's process while it runs.
    var child: ChildProcess? { state.withLock { $0.child } }

    /// Keeps the demo running until ``stop()``.
    func run() async {
        var failures = 0
        while !isStopping {
            let child: ChildProcess
            do {
                child = try spawn()
            } catch {
                logger.error("demo could not start: \(error)")
                return
            }
            let started = ContinuousClock.now
            let exit = await child.waitForExit()
            state.withLock { $0.child = nil }
            if isStopping { return }
            // A loop that dies at once every time is broken; say so instead of spinning.
            failures = ContinuousClock.now - started < .seconds(2) ? failures + 1 : 0
            if failures >= 3 {
                logger.error("demo: the loop keeps exiting right away (\(exit)); see \(options.logFile). Not restarting it.")
                return
            }
            logger.notice("demo: the loop ended (\(exit)); a new run starts in \(Int(options.restBetweenRuns)) s")
            // Rest, unless stopped meanwhile.
            let stopped = self.stopped
            _ = await withDeadline(.milliseconds(Int(options.restBetweenRuns * 1000))) { await stopped.wait() ? true : nil }
        }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func spawn() throws -> ChildProcess {
        guard let executable = options.command.first else { throw ChildProcess.SpawnError.spawnFailed(command: "", reason: "no demo command") }
        let arguments = Array(options.command.dropFirst()) + [
            "--dir", options.workspace, "--event-pace", String(options.pace), "--question-timeout", String(options.questionTimeout),
            "--rest", String(options.restBetweenRuns), "--parent-pid", String(getpid()),
        ]
        var environment = ProcessInfo.processInfo.environment
        environment = ChildEnvironment.scrubbed(environment)
        let child = try ChildProcess.spawn(executable, arguments: arguments, workingDirectory: options.workspace, environment: environment, logFile: options.logFile)
        let stopNow = state.withLock { s -> Bool in
            s.child = child
            return s.stopping
        }
        if stopNow { Self.terminate(child) }
        logger.info("demo: loop running as pid \(child.pid)")
        return child
    }

    /// Stops the demo for good: SIGTERM (and SIGCONT, in case it is paused) to its group; SIGKILL after 5 s.
    func stop() async {
        let child = state.withLock { s -> ChildProcess? in
            s.stopping = true
            return s.child
        }
        stopped.open()
        guard let child else { return }
        Self.terminate(child)
        if await child.waitForExit(timeout: .seconds(5)) == nil {
            kill(-child.pid, SIGKILL)
            _ = await child.waitForExit()
        }
    }

    private static func terminate(_ child: ChildProcess) {
        kill(-child.pid, SIGTERM)
        kill(-child.pid, SIGCONT)
    }
}
