import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

@Suite("Writing runs in ralph's layout")
struct RalphSimulatorTests {
    static func tempWorkspace() -> String {
        let path = FileManager.default.temporaryDirectory.path + "/rs-test-\(UUID().uuidString.prefix(8))/ws"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return FileSystem.realPath(path)!
    }

    static func lines(_ file: String) -> [JSONObject] {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            if case .object(let o)? = try? JSONParser.parse(String(line)) { return o }
            return nil
        }
    }

    @Test("a run takes loop.lock, points current-events at its file, and writes ralph's line shapes")
    func writerLayout() throws {
        let workspace = Self.tempWorkspace()
        defer { try? FileManager.default.removeItem(atPath: (workspace as NSString).deletingLastPathComponent) }
        let writer = try RalphRunWriter(workspace: workspace)
        try writer.begin(prompt: "Do the thing", at: Timestamp.parse("2026-02-05T08:39:22Z")!)
        #expect(writer.eventsFile == workspace + "/.ralph/events-20260205-083922.jsonl")
        #expect(try String(contentsOfFile: workspace + "/.ralph/current-events", encoding: .utf8) == ".ralph/events-20260205-083922.jsonl")
        #expect(try String(contentsOfFile: workspace + "/.ralph/current-loop-id", encoding: .utf8) == "primary-20260205-083922")
        let lock = try #require(Self.lines(workspace + "/.ralph/loop.lock").first)
        #expect(lock["pid"]?.intValue == Int(getpid()))
        #expect(lock["prompt"]?.stringValue == "Do the thing")
        let liveness = LivenessProbe.probe(workspace: workspace, stateDirectory: workspace + "/.ralph", layout: .ralph, locks: LockTable.current())
        #expect(liveness.alive && liveness.currentRunFile == writer.eventsFile)

        // A second loop in the same workspace cannot take the lock (ralph would go to a worktree).
        let second = try RalphRunWriter(workspace: workspace)
        #expect(throws: RalphRunWriter.WriterError.self) { try second.begin(prompt: "other") }

        try writer.record(topic: "build.task", payload: "p", iteration: 1, hat: "planner", triggered: "builder")
        try writer.emit(topic: "note", payload: .object(JSONObject([("k", 1)])))
        try writer.terminate(reason: "completed", status: "All tasks completed successfully.", iterations: 1, exitCode: 0)
        let written = Self.lines(writer.eventsFile)
        #expect(written[0].keys == ["ts", "iteration", "hat", "topic", "triggered", "payload"])
        #expect(written[1].keys == ["payload", "topic", "ts"])
        #expect(written[2]["topic"]?.stringValue == "loop.terminate")
        let stop = LoopTerminate.parse(written[2]["payload"]?.stringValue, at: nil)
        #expect(stop.reason == "completed" && stop.iterations == 1 && stop.exitCode == 0)
        #expect(!LivenessProbe.probe(workspace: workspace, stateDirectory: workspace + "/.ralph", layout: .ralph, locks: LockTable.current()).alive)
    }

    @Test("ralph's duration format")
    func durations() {
        #expect(RalphRunWriter.formatDuration(45) == "45s")
        #expect(RalphRunWriter.formatDuration(1260) == "21m 0s")
        #expect(RalphRunWriter.formatDuration(3723) == "1h 2m 3s")
    }

    @Test("the demo runs a complete loop and takes a human.response to its question")
    func demoAnswersQuestion() async throws {
        let workspace = Self.tempWorkspace()
        defer { try? FileManager.default.removeItem(atPath: (workspace as NSString).deletingLastPathComponent) }
        var options = DemoLoop.Options(workspace: workspace)
        options.pace = 0.01
        options.questionTimeout = 10
        options.runLimit = 1
        let demo = DemoLoop(options: options)
        try demo.start()
        // Answer the question as the app would: a human.response line appended to the current events file.
        var file = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let current = try? String(contentsOfFile: workspace + "/.ralph/current-events", encoding: .utf8) {
                file = workspace + "/" + current
                if Self.lines(file).contains(where: { $0["topic"]?.stringValue == "human.interact" }) { break }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        try EventFileAppender.append(line: EventFileAppender.emitLine(topic: "human.response", payload: "per IP, please"), to: file)
        await demo.waitUntilFinished()
        let topics = Self.lines(file).compactMap { $0["topic"]?.stringValue }
        #expect(topics.first == "task.start" && topics.last == "loop.terminate")
        #expect(topics.contains("build.blocked"))
        // The reviewer's answer belongs to the iteration in which it asked; loop.terminate carries the last one.
        #expect(Self.lines(file).compactMap { $0["iteration"]?.intValue } == [0, 1, 2, 3, 4, 4, 5, 6, 7, 7])
        let review = try #require(Self.lines(file).first { $0["topic"]?.stringValue == "review.changes_requested" })
        #expect(review["payload"]?.stringValue?.hasPrefix("Human answered: per IP, please") == true)
        #expect(FileManager.default.fileExists(atPath: workspace + "/ralph.yml"))
        #expect(FileManager.default.fileExists(atPath: workspace + "/.ralph/agent/scratchpad.md"))
    }
}
