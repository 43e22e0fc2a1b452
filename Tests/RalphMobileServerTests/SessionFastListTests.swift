import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

/// A first start on a data directory with no run index: runs large enough to be listed from a fast scan, their folds
/// held (``ServerConfiguration/holdsBackgroundFolds``) so what clients see before them can be looked at.
@Suite("Sessions after a first start: the list at once, the details once folded")
struct SessionFastListTests {
    /// Three finished runs of about 100 kB (above the catalog's scan threshold) in two workspaces, and what a fold of
    /// each gives.
    static func makeWorkspace(_ tmp: TemporaryDirectory) -> (root: String, runs: [String]) {
        let root = tmp.subdirectory("root")
        Fixture.write("event_loop:\n  max_iterations: 300\n", to: root + "/alpha/ralph.yml")
        var runs: [String] = []
        for (n, workspace) in ["alpha", "alpha", "beta"].enumerated() {
            let start = Fixture.date("2026-02-0\(n + 1)T08:00:00Z")
            var lines = [Fixture.record("task.start", "Task \(n)\nwith details", iteration: 0, hat: "loop", triggered: "planner", at: start)]
            for i in 1...200 {
                let at = start.addingTimeInterval(Double(i) * 30)
                lines.append(Fixture.record("build.task", "task \(i)", iteration: i, hat: "planner", triggered: "builder", at: at))
                lines.append(Fixture.emit("agent.usage", .object(JSONObject([("usage", .object(JSONObject([("input_tokens", 100), ("output_tokens", 20)])))])), at: at))
                lines.append(Fixture.record("build.done", "tests: pass\nlint: pass", iteration: i, hat: "builder", triggered: "planner", at: at.addingTimeInterval(10)))
                if i % 50 == 0 { lines.append("not json at all") }
            }
            lines.append(Fixture.terminate("completed", iterations: 200, at: start.addingTimeInterval(7_000)))
            runs.append(Fixture.run(in: root + "/" + workspace, name: "events-2026020\(n + 1)-080000.jsonl", lines: lines))
        }
        return (root, runs)
    }

    @Test("the first list shows every run as a folded server shows it; a detail says it is still reading, then shows the fold")
    func listAtOnceDetailsAfter() async throws {
        let tmp = TemporaryDirectory()
        let w = Self.makeWorkspace(tmp)
        let server = try await LiveServer.start(workspaces: [w.root], dataDirectory: tmp.subdirectory("data")) { configuration in
            configuration.holdsBackgroundFolds = true
            configuration.detailFoldWait = 0.3
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let catalog = server.server.catalog
        let listed = try await HTTP.get(server.base + "/api/sessions").json([Session].self)
        #expect(listed.count == 3)
        #expect(catalog.startupReport()?.scanned == 3)
        for file in w.runs {
            let id = Fixture.id(file)
            let status = try #require(FileSystem.status(file))
            let lines = try #require(catalog.snapshot(id: id)).summary.lineCount
            let folded = try EventFileReader.foldState(file: file, device: status.device, inode: status.inode, lines: lines)
            let session = try #require(listed.first { $0.id == id })
            #expect(session.eventCount == folded.eventCount)
            #expect(session.eventCount == 602)
            #expect(session.iteration == folded.iteration && session.hat == folded.hat)
            #expect(session.lastEventAt == folded.lastEventDate.map(Timestamp.format))
            #expect(session.taskName == folded.taskName)
            #expect(session.status == .completed)
        }

        // A detail waits a moment, then says what is going on rather than showing half a fold.
        let id = Fixture.id(w.runs[2])
        let early = try await HTTP.get(server.base + "/api/sessions/\(id)")
        #expect(early.status == 503)
        #expect(try early.json(ErrorResponse.self).prefix == .unavailable)
        #expect(early.text.contains("still reading"))
        #expect(try await HTTP.get(server.base + "/api/sessions/\(id)/iterations").status == 503)

        catalog.releaseBackgroundFolds()
        try await eventually(20, "the detail") { try await HTTP.get(server.base + "/api/sessions/\(id)").status == 200 }
        let detail = try await HTTP.get(server.base + "/api/sessions/\(id)").json(SessionDetail.self)
        let status = try #require(FileSystem.status(w.runs[2]))
        let folded = try EventFileReader.foldState(file: w.runs[2], device: status.device, inode: status.inode, lines: detail.lineCount)
        #expect(detail.lineCount == 606)
        #expect(detail.malformedLines == 4)
        #expect(detail.hatFlow == folded.hatFlow)
        #expect(detail.hatTransitions == folded.hatTransitionCount)
        #expect(detail.iterationStats.count == 200)
        #expect(detail.tokens == folded.tokens)
        #expect(detail.tokens?.inputTokens == 200 * 100)
        let iterations = try await HTTP.get(server.base + "/api/sessions/\(id)/iterations").json(IterationsResponse.self)
        #expect(iterations.total == 200)

        // Once every run is folded, the list is the same list.
        for file in w.runs { #expect(await catalog.waitUntilFolded(id: Fixture.id(file), timeout: .seconds(20))) }
        let after = try await HTTP.get(server.base + "/api/sessions").json([Session].self)
        #expect(after == listed)
    }

    @Test("a detail asked for while its run is being folded waits for the fold (asked for first) and answers with it")
    func detailWaitsForTheFold() async throws {
        let tmp = TemporaryDirectory()
        let w = Self.makeWorkspace(tmp)
        let server = try await LiveServer.start(workspaces: [w.root], dataDirectory: tmp.subdirectory("data")) { configuration in
            configuration.holdsBackgroundFolds = true
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let id = Fixture.id(w.runs[0])
        let asked = Task { () -> (status: Int, detail: SessionDetail?) in
            let answer = try await HTTP.get(server.base + "/api/sessions/\(id)")
            return (answer.status, try? answer.json(SessionDetail.self))
        }
        try await Task.sleep(for: .milliseconds(300))
        server.server.catalog.releaseBackgroundFolds()
        let answer = try await asked.value
        #expect(answer.status == 200)
        let detail = try #require(answer.detail)
        #expect(detail.lineCount == 606)
        #expect(detail.iterationStats.count == 200)
        #expect(detail.session.total == 300)
    }
}
