import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// How a session stream ends: a finished run's `end` frame, a loop that ends or dies while streamed, and a server
/// that goes away and comes back.
@Suite("Session event stream: the end of a run, and a restart")
struct EventStreamEndTests {
    @Test("a completed run replays its history, then sends end and closes")
    func completedRunEnds() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let id = try await h.finishedRun(
            "done", lines: [Fixture.record("task.start", "t", iteration: 0, hat: "loop", triggered: "planner"), Fixture.terminate("max_iterations", iterations: 3)]
        )
        let client = try await h.stream(id)
        let messages = try await client.messagesUntilClosed()
        #expect(messages.map(\.event) == ["workflow", "workflow", "end"])
        let end = messages[2].json
        #expect(end["mode"] as? String == "complete")
        #expect(end["status"] as? String == "failed")
        #expect(end["reason"] as? String == "max_iterations")
        #expect(end["last_event_id"] as? Int == 2)
        #expect(messages[2].id == nil, "end carries no id, so Last-Event-ID stays at the last event")

        // Resuming at the end: just the end frame.
        let atEnd = try await h.resume(id, after: "2")
        #expect(try await atEnd.messagesUntilClosed().map(\.event) == ["end"])
    }

    @Test("a live run that ends delivers its last events, then end")
    func liveRunEnds() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (run, client, replayed) = try await h.streamedRun(appending: 2)
        #expect(replayed.count == 2)
        run.append(3, from: 3)
        try run.end()
        let messages = try await client.messagesUntilClosed()
        #expect(messages.map(\.event) == ["workflow", "workflow", "workflow", "workflow", "end"])
        #expect(messages.compactMap(\.line) == [3, 4, 5, 6])
        #expect(messages.last?.json["status"] as? String == "completed")
    }

    @Test("a loop that dies without loop.terminate ends the stream too")
    func loopDiesWithoutTerminate() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (run, client, replayed) = try await h.streamedRun(appending: 1)
        #expect(replayed.count == 1)
        run.append(1, from: 2)
        run.writer.releaseLock()  // the process is gone: its flock is released
        let messages = try await client.messagesUntilClosed()
        #expect(messages.map(\.event) == ["workflow", "end"])
        #expect(messages.last?.json["reason"] as? String == "exited")
        #expect(messages.last?.json["status"] as? String == "stopped")
    }

    @Test("after a server restart, Last-Event-ID brings every missed event once, in order")
    func resumeAcrossRestart() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        let run = try LiveRun(workspace: root + "/proj")
        run.append(10)
        let first = try await LiveServer.start(workspaces: [root], dataDirectory: data)
        try await StreamHarness.waitForRun(first, run.id)
        let client = try await SSETestClient.connect(first.base + "/api/sessions/\(run.id)/events")
        let before = try await client.workflow(count: 10)
        run.append(5, from: 11)
        let more = try await client.workflow(count: 5)
        await first.stop()
        #expect(try await client.messagesUntilClosed().isEmpty)

        run.append(20, from: 16)  // written while no server runs
        let second = try await LiveServer.start(workspaces: [root], dataDirectory: data)
        defer { Task { await second.stop(); withExtendedLifetime(tmp) {} } }
        let resumed = try await SSETestClient.connect(second.base + "/api/sessions/\(run.id)/events", headers: [("Last-Event-ID", more.last!.id!)])
        let missed = try await resumed.workflow(count: 20)
        run.append(5, from: 36)
        let live = try await resumed.workflow(count: 5)
        let ids = (before + more + missed + live).compactMap(\.line)
        #expect(ids == Array(1...40))
        #expect(Fixture.id(run.file) == run.id, "ids are stable across restarts")
    }
}
