import Foundation
import Testing

@testable import AgentRunner

#if canImport(Glibc)
import Glibc
#endif

/// The pieces run control waits with instead of polling: exits, owned tasks, the stop latch.
@Suite("Run control: waiting without polling, owned tasks")
struct RunSupervisorSupportTests {
    static func sleeper(_ seconds: String) throws -> ChildProcess {
        try ChildProcess.spawn("/bin/sleep", arguments: [seconds], workingDirectory: "/", environment: ["PATH": "/usr/bin:/bin"], logFile: "/dev/null")
    }

    @Test("a process's exit is heard when it happens; a process that goes on is reported after the timeout")
    func exitWatch() async throws {
        let short = try Self.sleeper("0.3")
        let snapshot = try #require(ProcessInspector.snapshot(Int(short.pid)))
        let started = ContinuousClock.now
        #expect(await ProcessExitWatch.waitUntilGone(snapshot, timeout: .seconds(10)))
        #expect(ContinuousClock.now - started < .seconds(5))

        let long = try Self.sleeper("30")
        defer { kill(long.pid, SIGKILL) }
        let longSnapshot = try #require(ProcessInspector.snapshot(Int(long.pid)))
        #expect(!(await ProcessExitWatch.waitUntilGone(longSnapshot, timeout: .milliseconds(200))))
        #expect(await long.waitForExit(timeout: .milliseconds(100)) == nil)
        kill(long.pid, SIGKILL)
        #expect(await long.waitForExit(timeout: .seconds(5)) == .signaled(SIGKILL))
    }

    @Test("a process that is already gone is gone at once")
    func alreadyGone() async throws {
        let child = try Self.sleeper("0")
        _ = await child.waitForExit()
        let stale = ProcessSnapshot(pid: Int(child.pid), processGroup: Int(child.pid), state: "S", startTicks: 1, uid: nil)
        #expect(await ProcessExitWatch.waitUntilGone(stale, timeout: .seconds(5)))
    }

    @Test("shutdown cancels and awaits every owned task; nothing starts after it")
    func ownedTasks() async {
        let tasks = OwnedTasks()
        let ended = StopLatch()
        tasks.spawn {
            try? await Task.sleep(for: .seconds(3600))
            ended.open()
        }
        #expect(tasks.count == 1)
        await tasks.shutdown()
        #expect(ended.isOpen && tasks.count == 0)
        #expect(!tasks.spawn {})
    }

    @Test("a finished owned task is forgotten")
    func finishedTasksLeave() async throws {
        let tasks = OwnedTasks()
        tasks.spawn {}
        for _ in 0..<200 where tasks.count > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(tasks.count == 0)
    }

    @Test("a latch wakes its waiters when opened; a cancelled wait ends without it")
    func latch() async {
        let latch = StopLatch()
        #expect(await withDeadline(.milliseconds(50)) { await latch.wait() ? true : nil } == nil)
        async let woken = latch.wait()
        latch.open()
        #expect(await woken)
        #expect(await latch.wait(), "open stays open")
    }

    @Test("a workspace watch wakes on a change to its runs (kept if nobody waits yet) and times out without one")
    func workspaceWatch() async {
        let watch = WorkspaceChangeWatch(workspace: "/w/proj", key: 1)
        #expect(watch.covers("/w/proj") && watch.covers("/w/proj/.worktrees/a") && !watch.covers("/w/project"))
        #expect(!(await watch.next(timeout: .milliseconds(50))))
        watch.notify()
        #expect(await watch.next(timeout: .seconds(5)), "a change before the wait is not lost")
        async let woken = watch.next(timeout: .seconds(5))
        try? await Task.sleep(for: .milliseconds(50))
        watch.notify()
        #expect(await woken)
    }
}
