import Foundation
import Logging
import Testing

@testable import AgentRunner

/// `runs.json` is written in order: an older state never lands after a newer one.
@Suite("Run state file (ordered persistence)")
final class RunStateFileTests {
    /// A directory of this test's own (Swift Testing makes an instance per test), removed when the test is done.
    let dir: String
    /// The state file under test, in `dir`.
    let file: RunStateFile

    init() {
        dir = ChildProcessTests.tempDir()
        file = Self.stateFile(in: dir)
    }

    deinit {
        do { try FileManager.default.removeItem(atPath: dir) } catch { Issue.record("could not remove \(dir): \(error)") }
    }

    static func stateFile(in dir: String, _ name: String = "runs.json") -> RunStateFile {
        RunStateFile(path: dir + "/" + name, logger: Logger(label: "test"))
    }

    static func state(_ n: Int) -> RunSupervisor.Persisted {
        RunSupervisor.Persisted(
            started: [], paused: [RunSupervisor.PausedRun(id: "run-\(n)", pid: n, startTicks: nil, pausedAt: "2026-01-01T10:00:00Z")]
        )
    }

    @Test("an older state handed in after a newer one is never written")
    func olderNeverOverwritesNewer() async throws {
        file.submit(Self.state(2), version: 2)
        file.submit(Self.state(1), version: 1)
        await file.flushed(through: 2)
        #expect(try file.load() == Self.state(2))
        file.submit(Self.state(1), version: 1)
        await file.flushed(through: 1)
        #expect(try file.load() == Self.state(2) && file.writtenVersion == 2)
    }

    @Test("an older state handed in while a newer one is being written is dropped, not written after it")
    func olderDuringWrite() async throws {
        for attempt in 0..<50 {
            let file = Self.stateFile(in: dir, "runs-\(attempt).json")
            file.submit(Self.state(2), version: 2)
            file.submit(Self.state(1), version: 1)
            await file.flushed(through: 2)
            #expect(try file.load() == Self.state(2))
        }
    }

    @Test("states handed in from many tasks at once end with the newest on disk")
    func concurrentSubmits() async throws {
        let file = self.file
        await withTaskGroup(of: Void.self) { group in
            for n in (1...200).shuffled() { group.addTask { file.submit(Self.state(n), version: n) } }
        }
        await file.flushed(through: 200)
        #expect(try file.load() == Self.state(200))
    }

    @Test("bytes are pretty, sorted and keep slashes unescaped (the format runs.json always had)")
    func bytes() async throws {
        var value = Self.state(1)
        value.started = [
            RunSupervisor.StartedRun(
                pendingID: "p", runID: nil, pid: 3, startTicks: 4, workingDirectory: "/w/a", root: "/w", log: "/d/p.log", startedAt: "t",
                arguments: ["run"], exit: nil
            )
        ]
        file.submit(value, version: 1)
        await file.flushed(through: 1)
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        #expect(text == String(decoding: try encoder.encode(value), as: UTF8.self))
        #expect(text.contains("\"working_directory\" : \"/w/a\""))
    }

    @Test("an unreadable state file is an error the supervisor logs, not an empty state")
    func unreadable() throws {
        #expect(try file.load() == nil)
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("{not json".utf8))
        #expect(throws: (any Error).self) { try file.load() }
    }
}
