import Foundation
import Testing

@testable import AgentRunner

#if canImport(Glibc)
import Glibc
#endif

@Suite("Spawning and inspecting processes")
struct ChildProcessTests {
    static func tempDir() -> String {
        let path = FileManager.default.temporaryDirectory.path + "/ar-test-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("argv is passed as is (no shell), in the working directory, with output in the log file")
    func argvAndOutput() async throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/out.log"
        let child = try ChildProcess.spawn(
            "/bin/sh", arguments: ["-c", "pwd; echo \"$1\"; echo err >&2; exit 3", "sh", "a b; $(rm -rf /) `x`"], workingDirectory: dir,
            environment: ["PATH": "/usr/bin:/bin"], logFile: log
        )
        #expect(await child.waitForExit() == .exited(3))
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text == "\(dir)\na b; $(rm -rf /) `x`\nerr\n")
    }

    @Test("a child gets its own process group, stdin from /dev/null, and no zombie after it exits")
    func groupAndReaping() async throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let child = try ChildProcess.spawn("sleep", arguments: ["30"], workingDirectory: dir, environment: ["PATH": "/usr/bin:/bin"], logFile: dir + "/log")
        let snapshot = try #require(ProcessInspector.snapshot(Int(child.pid)))
        #expect(snapshot.processGroup == Int(child.pid))
        #expect(snapshot.processGroup != Int(getpgrp()))
        #expect(ProcessInspector.belongsToCurrentUser(snapshot))
        #expect(ProcessInspector.signalTarget(for: snapshot) == -child.pid)
        #expect(!ProcessInspector.isCurrentProcess(snapshot))
        // A loop lock held by this very process (an in-process writer) must never be signalled.
        let me = try #require(ProcessInspector.snapshot(Int(getpid())))
        #expect(ProcessInspector.isCurrentProcess(me))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/fd/0") == "/dev/null")
        kill(-child.pid, SIGSTOP)
        try await Task.sleep(for: .milliseconds(50))
        #expect(ProcessInspector.snapshot(Int(child.pid))?.isStopped == true)
        kill(-child.pid, SIGKILL)
        #expect(await child.waitForExit() == .signaled(SIGKILL))
        #expect(ProcessInspector.snapshot(Int(child.pid)) == nil, "reaped: no zombie left")
        #expect(!ProcessInspector.isAlive(Int(child.pid)))
    }

    @Test("a process that prints far more than a pipe holds never blocks")
    func chattyChild() async throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let child = try ChildProcess.spawn(
            "/bin/sh", arguments: ["-c", "head -c 20000000 /dev/zero | tr '\\\\0' x"], workingDirectory: dir, environment: ["PATH": "/usr/bin:/bin"],
            logFile: dir + "/log"
        )
        #expect(await child.waitForExit() == .exited(0))
        #expect(try FileManager.default.attributesOfItem(atPath: dir + "/log")[.size] as? Int == 20_000_000)
    }

    @Test("missing or non-executable commands and unwritable logs are clear errors")
    func spawnErrors() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: ChildProcess.SpawnError.notFound("no-such-ralph")) {
            try ChildProcess.spawn("no-such-ralph", arguments: [], workingDirectory: dir, environment: ["PATH": "/usr/bin"], logFile: dir + "/l")
        }
        _ = FileManager.default.createFile(atPath: dir + "/plain", contents: Data("x".utf8))
        #expect(throws: ChildProcess.SpawnError.notExecutable(dir + "/plain")) {
            try ChildProcess.spawn(dir + "/plain", arguments: [], workingDirectory: dir, environment: [:], logFile: dir + "/l")
        }
        #expect(throws: ChildProcess.SpawnError.self) {
            try ChildProcess.spawn("/bin/true", arguments: [], workingDirectory: dir, environment: [:], logFile: dir + "/missing-dir/log")
        }
    }

    @Test("process identity includes the start time, so a reused pid is not mistaken for the old process")
    func startTicks() async throws {
        let me = try #require(ProcessInspector.snapshot(Int(getpid())))
        #expect(me.startTicks != nil)
        #expect(ProcessInspector.isAlive(Int(getpid()), startTicks: me.startTicks))
        #expect(!ProcessInspector.isAlive(Int(getpid()), startTicks: (me.startTicks ?? 0) + 1))
        #expect(ProcessInspector.snapshot(0) == nil && ProcessInspector.snapshot(-1) == nil)
    }

    @Test("a log past its limit is truncated with a note, and one under it is left alone")
    func logLimit() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/run.log"
        _ = FileManager.default.createFile(atPath: log, contents: Data(repeating: 0x41, count: 1000))
        #expect(try !RunSupervisor.truncateIfOver(log, limit: 1000))
        _ = FileManager.default.createFile(atPath: log, contents: Data(repeating: 0x41, count: 1001))
        #expect(try RunSupervisor.truncateIfOver(log, limit: 1000))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "[ralph-mobile: the log passed 1000 bytes and was truncated here]\n")
    }
}
