import Foundation
import Testing

@testable import AgentRunner

#if canImport(Glibc)
import Glibc
#endif

@Suite("An agent process with pipes", .timeLimit(.minutes(1)))
struct AgentProcessTests {
    static let environment = ["PATH": "/usr/bin:/bin"]

    static func shell(_ script: String, in directory: String = "/tmp") throws -> AgentProcess {
        try AgentProcess.start(executable: "/bin/sh", arguments: ["-c", script], workingDirectory: directory, environment: environment)
    }

    static func allLines(_ process: AgentProcess) async -> [String] {
        var lines: [String] = []
        for await line in process.lines { lines.append(String(decoding: line, as: UTF8.self)) }
        return lines
    }

    @Test("stdout lines arrive in order, \\r\\n tolerated, with the partial last line at end of file")
    func linesInOrder() async throws {
        let process = try Self.shell(#"pwd; printf 'a\nb\r\n\nc'"#)
        #expect(await Self.allLines(process) == ["/tmp", "a", "b", "", "c"])
        #expect(await process.waitForExit() == .exited(0))
    }

    @Test("the child runs in its own process group with only descriptors 0, 1 and 2, and a resolved executable")
    func isolation() async throws {
        let process = try AgentProcess.start(
            executable: "sh", arguments: ["-c", "ls -1 /proc/$$/fd; ps -o pgid= -p $$"], workingDirectory: "/tmp", environment: Self.environment
        )
        #expect(process.executable == "/usr/bin/sh" || process.executable == "/bin/sh")
        let lines = await Self.allLines(process)
        #expect(Array(lines.prefix(3)) == ["0", "1", "2"])
        #expect(lines.count == 4)
        #expect(lines.last?.trimmingCharacters(in: .whitespaces) == String(process.pid))
        #expect(await process.waitForExit() == .exited(0))
    }

    @Test("stderr is kept as a tail, complete when the exit is reported")
    func stderrTail() async throws {
        let process = try Self.shell("echo out; echo oops >&2; exit 4")
        #expect(await process.waitForExit() == .exited(4))
        #expect(process.stderrTail == "oops\n")
        #expect(await Self.allLines(process) == ["out"])
    }

    @Test("megabytes on stdout while stderr floods too: no deadlock, nothing lost, stderr tail bounded")
    func largeOutput() async throws {
        let process = try Self.shell("(head -c 6000000 /dev/zero | tr '\\0' e >&2) & seq 1 300000; wait")
        var count = 0
        var last = ""
        var inOrder = true
        for await line in process.lines {
            count += 1
            last = String(decoding: line, as: UTF8.self)
            if last != String(count) { inOrder = false }
        }
        #expect(count == 300_000)
        #expect(inOrder)
        #expect(last == "300000")
        #expect(await process.waitForExit() == .exited(0))
        let tail = process.stderrTail
        #expect(tail.utf8.count == AgentProcess.stderrTailBytes)
        #expect(tail.allSatisfy { $0 == "e" })
    }

    @Test("send reaches the child's stdin in order; closing stdin ends it")
    func sendAndEcho() async throws {
        let process = try AgentProcess.start(executable: "cat", arguments: [], workingDirectory: "/tmp", environment: Self.environment)
        var iterator = process.lines.makeAsyncIterator()
        process.send(Array("hello\n".utf8))
        #expect(await iterator.next().map { String(decoding: $0, as: UTF8.self) } == "hello")
        // More than a pipe holds, sent at once: send never blocks, the writer thread keeps feeding cat.
        let big = (1...20000).map { "line \($0)\n" }
        for line in big { process.send(Array(line.utf8)) }
        for n in 1...20000 {
            guard let line = await iterator.next() else {
                Issue.record("stream ended at \(n)")
                break
            }
            if String(decoding: line, as: UTF8.self) != "line \(n)" {
                Issue.record("line \(n) was \(String(decoding: line, as: UTF8.self))")
                break
            }
        }
        process.send(Array("tail".utf8))
        process.closeStdin()
        process.send(Array("after close\n".utf8))
        #expect(await iterator.next().map { String(decoding: $0, as: UTF8.self) } == "tail")
        #expect(await iterator.next() == nil)
        #expect(await process.waitForExit() == .exited(0))
    }

    @Test("terminate: SIGTERM first, SIGKILL for a process that ignores it")
    func terminate() async throws {
        let polite = try AgentProcess.start(executable: "sleep", arguments: ["30"], workingDirectory: "/tmp", environment: Self.environment)
        #expect(await polite.terminate(grace: .seconds(5)) == .signaled(SIGTERM))

        let stubborn = try Self.shell("trap '' TERM; echo ready; while true; do sleep 0.05; done")
        var iterator = stubborn.lines.makeAsyncIterator()
        #expect(await iterator.next().map { String(decoding: $0, as: UTF8.self) } == "ready")
        let started = ContinuousClock.now
        #expect(await stubborn.terminate(grace: .milliseconds(300)) == .signaled(SIGKILL))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        // The whole group went: the sleeping grandchild no longer holds stdout, so the stream ends.
        #expect(await iterator.next() == nil)
        // Terminating again after the exit is harmless.
        #expect(await stubborn.terminate(grace: .milliseconds(10)) == .signaled(SIGKILL))
    }

    @Test("writing to a child that closed its stdin or exited fails quietly")
    func brokenPipe() async throws {
        let closing = try Self.shell("exec 0<&-; echo closed; sleep 0.3; echo still here")
        var iterator = closing.lines.makeAsyncIterator()
        #expect(await iterator.next().map { String(decoding: $0, as: UTF8.self) } == "closed")
        let chunk = [UInt8](repeating: 0x78, count: 100_000) + [0x0A]
        for _ in 0..<5 { closing.send(chunk) }
        #expect(await iterator.next().map { String(decoding: $0, as: UTF8.self) } == "still here")
        #expect(await closing.waitForExit() == .exited(0))

        let gone = try AgentProcess.start(executable: "true", arguments: [], workingDirectory: "/tmp", environment: Self.environment)
        #expect(await gone.waitForExit() == .exited(0))
        for _ in 0..<5 { gone.send(chunk) }
        gone.closeStdin()
        try await Task.sleep(for: .milliseconds(100))
        #expect(await gone.terminate(grace: .milliseconds(10)) == .exited(0))
    }

    @Test("a missing executable is a clear error")
    func notFound() {
        #expect(throws: ChildProcess.SpawnError.notFound("no-such-agent")) {
            try AgentProcess.start(executable: "no-such-agent", arguments: [], workingDirectory: "/tmp", environment: Self.environment)
        }
    }
}
