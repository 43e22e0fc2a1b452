import AgentRunner
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("work that follows a child's exit, with no task to own")
struct ChildProcessExitHandlerTests {
    static func spawn(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess.spawn("/bin/sh", arguments: ["-c"] + arguments, workingDirectory: "/", environment: ["PATH": "/usr/bin:/bin"], logFile: "/dev/null")
    }

    @Test("a handler registered before the exit runs once, with the exit, before waiters return")
    func beforeExit() async throws {
        let child = try Self.spawn(["exit 3"])
        let seen = Mutex<[ChildProcess.Exit]>([])
        child.whenExited { exit in seen.withLock { $0.append(exit) } }
        let exit = await child.waitForExit()
        #expect(exit == .exited(3))
        #expect(seen.withLock { $0 } == [.exited(3)])
    }

    @Test("a handler registered after the exit runs at once")
    func afterExit() async throws {
        let child = try Self.spawn(["kill -TERM $$"])
        _ = await child.waitForExit()
        let seen = Mutex<[ChildProcess.Exit]>([])
        child.whenExited { exit in seen.withLock { $0.append(exit) } }
        #expect(seen.withLock { $0 } == [.signaled(SIGTERM)])
    }
}
