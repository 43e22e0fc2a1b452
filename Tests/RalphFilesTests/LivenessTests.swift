import Foundation
import RalphFiles
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Liveness from ralph's own files")
struct LivenessTests {
    @Test("/proc/locks lines are parsed; waiters do not count as holders")
    func parsesLockTable() {
        let table = LockTable(
            procLocks: """
                1: FLOCK  ADVISORY  WRITE 9077 fe:00:16220321 0 EOF
                1: -> FLOCK  ADVISORY  WRITE 9100 fe:00:16220321 0 EOF
                2: POSIX  ADVISORY  READ 42 08:01:77 0 EOF
                garbage line
                """
        )
        #expect(table.holder(device: 0xfe00, inode: 16_220_321) == 9077)
        #expect(table.holder(device: 0x0801, inode: 77) == 42)
        #expect(table.holder(device: 0x0801, inode: 78) == nil)
        #expect(table.holder(device: 0xfe01, inode: 16_220_321) == nil)
    }

    @Test("a held loop.lock flock makes the current run's workspace alive, with the holder's pid")
    func heldFlock() throws {
        let tmp = TempDir()
        tmp.file("w/.ralph/events-20260101-000000.jsonl")
        tmp.file("w/.ralph/current-events", ".ralph/events-20260101-000000.jsonl")
        let lockPath = tmp.file("w/.ralph/loop.lock", #"{"pid":1,"started":"x","prompt":"p"}"#)
        let state = tmp.path + "/w/.ralph"
        var probe = LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: LockTable.current())
        #expect(probe.currentRunFile == state + "/events-20260101-000000.jsonl")
        #expect(!probe.alive, "a stale loop.lock (not locked) is not a running loop, whatever pid it names")

        let fd = open(lockPath, O_RDWR)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        probe = LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: LockTable.current())
        #expect(probe.alive && probe.lockHeld)
        #expect(probe.pid == Int(getpid()))
        // Without /proc/locks, the shared-lock probe sees it too.
        #expect(LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: nil).lockHeld)
        close(fd)
        #expect(!LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: LockTable.current()).alive)
    }

    @Test("a loop that made a newer run file before pointing current-events at it is running that file, not the old one")
    func newRunFileBeforeMarker() throws {
        let tmp = TempDir()
        tmp.file("w/.ralph/events-20260101-000000.jsonl")
        tmp.file("w/.ralph/current-events", ".ralph/events-20260101-000000.jsonl")
        let lockPath = tmp.file("w/.ralph/loop.lock", #"{"pid":1,"started":"x","prompt":"p"}"#)
        let state = tmp.path + "/w/.ralph"
        func probe() -> WorkspaceLiveness {
            LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: LockTable.current())
        }
        // Not running: a newer file is not taken for the current one.
        tmp.file("w/.ralph/events-20260101-000005.jsonl")
        #expect(probe().currentRunFile == state + "/events-20260101-000000.jsonl")

        let fd = open(lockPath, O_RDWR)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        #expect(probe().currentRunFile == state + "/events-20260101-000005.jsonl", "the lock holder's new run")
        // A second run in the same second sorts after the first (`-2` after no suffix, `-10` after `-9`).
        tmp.file("w/.ralph/events-20260101-000005-2.jsonl")
        #expect(probe().currentRunFile == state + "/events-20260101-000005-2.jsonl")
        tmp.file("w/.ralph/events-20260101-000005-10.jsonl")
        tmp.file("w/.ralph/events-20260101-000005-9.jsonl")
        #expect(probe().currentRunFile == state + "/events-20260101-000005-10.jsonl")
        // The marker naming a file at least as new wins; so does a legacy file named on purpose.
        tmp.file("w/.ralph/current-events", ".ralph/events-20260101-000005-10.jsonl")
        #expect(probe().currentRunFile == state + "/events-20260101-000005-10.jsonl")
        tmp.file("w/.ralph/current-events", ".ralph/events.jsonl")
        #expect(probe().currentRunFile == state + "/events.jsonl")
        // No marker yet: the newest run file.
        unlink(state + "/current-events")
        #expect(probe().currentRunFile == state + "/events-20260101-000005-10.jsonl")
        // Names that are not run files are ignored.
        tmp.file("w/.ralph/events-20991231-235959.jsonl.bak")
        tmp.file("w/.ralph/events-2099-235959.jsonl")
        #expect(probe().currentRunFile == state + "/events-20260101-000005-10.jsonl")
    }

    @Test("a lock holder that dies releases the lock: the workspace is no longer alive")
    func holderDies() async throws {
        let tmp = TempDir()
        let lockPath = tmp.file("w/.ralph/loop.lock")
        let state = tmp.path + "/w/.ralph"
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["--no-fork", "-x", lockPath, "sleep", "30"]
        try holder.run()
        try await waitFor(5, "the child to take the lock") {
            LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: LockTable.current()).lockHeld
        }
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        try await waitFor(5, "the lock to be released") {
            !LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: LockTable.current()).alive
        }
    }

    @Test("current-events: relative to the workspace, absolute, or the legacy default")
    func currentEvents() {
        let tmp = TempDir()
        let state = tmp.dir("w/.ralph")
        tmp.file("w/.ralph/current-events", ".ralph/events-20260101-000000.jsonl\n")
        #expect(LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: nil).currentRunFile == state + "/events-20260101-000000.jsonl")
        tmp.file("w/.ralph/current-events", "/elsewhere/./x/../events.jsonl")
        #expect(LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: nil).currentRunFile == "/elsewhere/events.jsonl")
        try! FileManager.default.removeItem(atPath: state + "/current-events")
        #expect(LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: nil).currentRunFile == nil)
        tmp.file("w/.ralph/events.jsonl")
        #expect(LivenessProbe.probe(workspace: tmp.path + "/w", stateDirectory: state, layout: .ralph, locks: nil).currentRunFile == state + "/events.jsonl")
        let agent = tmp.dir("v/.agent")
        #expect(LivenessProbe.probe(workspace: tmp.path + "/v", stateDirectory: agent, layout: .agent, locks: nil).currentRunFile == agent + "/events.jsonl")
    }

    @Test("a worktree loop registered in loops.json with a live pid is alive; a dead pid is not")
    func worktreeLoops() {
        let tmp = TempDir()
        let worktree = tmp.dir("repo/.worktrees/feat")
        let state = tmp.dir("repo/.worktrees/feat/.ralph")
        func loops(pid: Int32) {
            tmp.file("repo/.ralph/loops.json", #"{"loops":[{"id":"feat","pid":\#(pid),"started":"x","prompt":"p","worktree_path":"\#(worktree)","workspace":"\#(tmp.path)/repo"}]}"#)
        }
        loops(pid: getpid())
        let live = LivenessProbe.probe(workspace: worktree, stateDirectory: state, layout: .ralph, locks: LockTable.current())
        #expect(live.alive && live.worktreeLoopPID == Int(getpid()))
        loops(pid: 999_999)
        #expect(!LivenessProbe.probe(workspace: worktree, stateDirectory: state, layout: .ralph, locks: LockTable.current()).alive)
        tmp.file("repo/.ralph/loops.json", "{broken")
        #expect(!LivenessProbe.probe(workspace: worktree, stateDirectory: state, layout: .ralph, locks: LockTable.current()).alive)
    }

    @Test("process liveness: self is alive, a reaped child and nonsense pids are not")
    func processAlive() throws {
        #expect(LivenessProbe.isProcessAlive(Int(getpid())))
        #expect(!LivenessProbe.isProcessAlive(0))
        #expect(!LivenessProbe.isProcessAlive(-5))
        #expect(!LivenessProbe.isProcessAlive(Int(Int32.max) + 10))
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        #expect(!LivenessProbe.isProcessAlive(Int(child.processIdentifier)))
    }
}
