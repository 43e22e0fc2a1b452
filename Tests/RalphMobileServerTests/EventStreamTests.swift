import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import Testing

@testable import RalphMobileServer

/// A live run driven by the test: the test process holds `loop.lock` and appends lines like ralph does.
final class LiveRun: @unchecked Sendable {
    // Safety: tests use a LiveRun from one task at a time; the writer's file descriptor is not shared concurrently.
    let writer: RalphRunWriter
    var file: String { writer.eventsFile }
    var id: String { Fixture.id(writer.eventsFile) }

    init(workspace: String, prompt: String = "Stream test") throws {
        writer = try RalphRunWriter(workspace: workspace)
        try writer.begin(prompt: prompt)
    }

    /// Appends `count` records numbered from `from`; returns their payloads.
    @discardableResult
    func append(_ count: Int, from: Int = 1, payloadSize: Int = 0) -> [String] {
        let filler = String(repeating: "x", count: payloadSize)
        return (from..<(from + count)).map { n in
            let payload = "event \(n)\(filler)"
            Fixture.append(Fixture.record("build.note", payload, iteration: n, hat: "builder", triggered: "builder"), to: file)
            return payload
        }
    }

    func end() throws {
        try writer.terminate(reason: "completed", status: "All tasks completed successfully.", iterations: 1, exitCode: 0)
    }
}

/// A server on a fresh root, with the setup most stream tests share.
struct StreamHarness {
    let tmp: TemporaryDirectory
    let server: LiveServer
    let root: String

    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> StreamHarness {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"), configure)
        return StreamHarness(tmp: tmp, server: server, root: root)
    }

    private init(tmp: TemporaryDirectory, server: LiveServer, root: String) {
        self.tmp = tmp
        self.server = server
        self.root = root
    }

    /// A live run in `<root>/<workspace>` with `count` events, once the server lists it as live.
    func liveRun(_ workspace: String = "proj", appending count: Int = 0) async throws -> LiveRun {
        let run = try LiveRun(workspace: root + "/" + workspace)
        run.append(count)
        try await EventStreamTests.waitForRun(server, run.id)
        return run
    }

    /// An SSE connection to a session's events.
    func stream(_ id: String, query: String = "", headers: [(String, String)] = []) async throws -> SSETestClient {
        try await SSETestClient.connect(server.base + "/api/sessions/\(id)/events" + query, headers: headers)
    }

    /// Stops the server, keeping the temporary directory until it has.
    func stop() {
        let (server, tmp) = (server, tmp)
        Task { await server.stop(); withExtendedLifetime(tmp) {} }
    }
}

@Suite("Session event stream: lossless, ordered, resumable")
struct EventStreamTests {
    static func waitForRun(_ server: LiveServer, _ id: String, live: Bool = true) async throws {
        try await eventually(5, "run \(id) to be listed") {
            let result = try await HTTP.get(server.base + "/api/sessions/\(id)/status")
            guard result.status == 200 else { return false }
            return try result.json(Session.self).mode == (live ? .live : .complete)
        }
    }

    @Test("events appended while a client streams arrive once each, in order, with their line numbers as ids")
    func appendWhileStreaming() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun(appending: 3)

        let client = try await h.stream(run.id)
        #expect(client.status == 200)
        #expect(client.headers["content-type"].first?.hasPrefix("text/event-stream") == true)
        #expect(client.headers["cache-control"].first == "no-cache")
        #expect(client.headers["x-accel-buffering"].first == "no")
        #expect(try await client.next() .isRetry(2000))
        let replayed = try await client.workflow(count: 3)
        #expect(replayed.map(\.line) == [1, 2, 3])

        // Appends while streaming, in several bursts.
        for burst in 0..<5 {
            run.append(20, from: 4 + burst * 20)
            try await Task.sleep(for: .milliseconds(10))
        }
        let live = try await client.workflow(count: 100)
        #expect(live.map(\.line) == Array(4...103))
        #expect(live.map { $0.json["payload"] as? String } == (4...103).map { "event \($0)" })
        #expect(live.allSatisfy { $0.json["topic"] as? String == "build.note" && $0.json["hat"] as? String == "builder" })
    }

    @Test("Last-Event-ID, ?after, ?history=N and ?history=all choose the replay")
    func replayCursors() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun(appending: 300)
        let url = server.base + "/api/sessions/\(run.id)/events"

        let byHeader = try await SSETestClient.connect(url, headers: [("Last-Event-ID", "250")])
        #expect(try await byHeader.workflow(count: 50).map(\.line) == Array(251...300))
        let byQuery = try await SSETestClient.connect(url + "?after=295")
        #expect(try await byQuery.workflow(count: 5).map(\.line) == Array(296...300))
        let byDefault = try await SSETestClient.connect(url)
        #expect(try await byDefault.workflow(count: 200).first?.line == 101)
        let lastTen = try await SSETestClient.connect(url + "?history=10")
        #expect(try await lastTen.workflow(count: 10).map(\.line) == Array(291...300))
        let all = try await SSETestClient.connect(url + "?history=all")
        #expect(try await all.workflow(count: 300).map(\.line) == Array(1...300))
        let none = try await SSETestClient.connect(url + "?history=0")
        run.append(1, from: 301)
        #expect(try await none.workflow(count: 1).map(\.line) == [301])

        for bad in ["?after=-1", "?after=abc", "?history=lots"] {
            let result = try await HTTP.get(url + bad)
            #expect(result.status == 400)
            #expect(try result.json(ErrorResponse.self).prefix == .invalidParameter)
        }
        #expect(try await HTTP.get(url, headers: [("Last-Event-ID", "x1")]).status == 400)
    }

    @Test("a partial line is held until its newline arrives, then delivered once")
    func partialLines() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun(appending: 1)
        let client = try await h.stream(run.id)
        #expect(try await client.workflow(count: 1).map(\.line) == [1])

        let line = Array(Fixture.record("build.done", "split in three", iteration: 2, hat: "builder").utf8)
        Fixture.appendRaw(Array(line[0..<10]), to: run.file)
        try await Task.sleep(for: .milliseconds(300))
        Fixture.appendRaw(Array(line[10..<40]), to: run.file)
        try await Task.sleep(for: .milliseconds(300))
        let status = try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self)
        #expect(status.lineCount == 1, "a partial line is not a line yet")
        Fixture.appendRaw(Array(line[40...]) + [0x0A], to: run.file)
        let message = try await client.nextMessage()
        #expect(message.line == 2)
        #expect(message.json["payload"] as? String == "split in three")
        run.append(1, from: 3)
        #expect(try await client.nextMessage().line == 3)
    }

    @Test("malformed, blank, invalid UTF-8 and multi-megabyte lines never crash and never shift ids")
    func badLines() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun(appending: 1)
        let client = try await h.stream(run.id)
        #expect(try await client.workflow(count: 1).map(\.line) == [1])

        Fixture.appendRaw(Array("{not json\n".utf8), to: run.file)  // 2
        Fixture.appendRaw(Array("\n".utf8), to: run.file)  // 3
        Fixture.appendRaw(Array(#"{"payload":"no topic"}"#.utf8) + [0x0A], to: run.file)  // 4
        Fixture.appendRaw(Array(#"{"topic":"bad.utf8","payload":""#.utf8) + [0xFF, 0xFE, 0x41] + Array(#""}"#.utf8) + [0x0A], to: run.file)  // 5
        let huge = String(repeating: "y", count: 5 << 20)
        Fixture.append(Fixture.emit("huge.payload", .string(huge)), to: run.file)  // 6
        Fixture.appendRaw(Array(String(repeating: "[", count: 200_000).utf8) + [0x0A], to: run.file)  // 7
        run.append(1, from: 8)  // 8
        let messages = try await client.workflow(count: 3, timeout: 10)
        #expect(messages.map(\.line) == [5, 6, 8])
        #expect(messages[0].json["payload"] as? String == "\u{FFFD}\u{FFFD}A")
        #expect((messages[1].json["payload"] as? String)?.count == 5 << 20)
        let detail = try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self)
        #expect(detail.lineCount == 8)
        #expect(detail.malformedLines == 3)
        #expect(detail.session.eventCount == 4)
        // Replay reads the same numbering back from the file.
        let replay = try await SSETestClient.connect(server.base + "/api/sessions/\(run.id)/events?history=all")
        #expect(try await replay.workflow(count: 4, timeout: 10).map(\.line) == [1, 5, 6, 8])
    }

    @Test("a truncated or replaced file is read again from the start")
    func fileReplacement() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun(appending: 5)
        let client = try await h.stream(run.id)
        #expect(try await client.workflow(count: 5).count == 5)

        // Replace the file (write elsewhere, rename over): new content, ids restart.
        let replacement = run.file + ".new"
        let lines = (1...2).map { Fixture.record("rewritten", "new \($0)", iteration: $0, hat: "builder") }
        _ = FileManager.default.createFile(atPath: replacement, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(rename(replacement, run.file) == 0)
        // Connected clients are closed so they start over.
        #expect(try await client.messagesUntilClosed().isEmpty)
        try await eventually(5, "the new content") {
            try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self).lineCount == 2
        }
        // A client resuming from an id past the new end gets the new file from the start.
        let resumed = try await SSETestClient.connect(server.base + "/api/sessions/\(run.id)/events", headers: [("Last-Event-ID", "5")])
        let again = try await resumed.workflow(count: 2)
        #expect(again.map { $0.json["payload"] as? String } == ["new 1", "new 2"])

        // Truncation in place.
        let handle = FileHandle(forWritingAtPath: run.file)!
        try handle.truncate(atOffset: 0)
        try handle.close()
        run.append(1, from: 1)
        try await eventually(5, "the truncated file to be re-read") {
            let detail = try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self)
            return detail.lineCount == 1 && detail.session.eventCount == 1
        }
    }

    @Test("five clients on five runs each get exactly their run's events")
    func concurrentClients() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (server, root) = (h.server, h.root)
        let runs = try (0..<5).map { try LiveRun(workspace: root + "/proj\($0)", prompt: "run \($0)") }
        for run in runs { try await Self.waitForRun(server, run.id) }
        var clients: [SSETestClient] = []
        for run in runs { clients.append(try await h.stream(run.id)) }
        for round in 0..<20 {
            for (i, run) in runs.enumerated() {
                Fixture.append(Fixture.record("work", "run \(i) event \(round)", iteration: round, hat: "builder"), to: run.file)
            }
        }
        for (i, client) in clients.enumerated() {
            let messages = try await client.workflow(count: 20)
            #expect(messages.map(\.line) == Array(1...20))
            #expect(messages.map { $0.json["payload"] as? String } == (0..<20).map { "run \(i) event \($0)" })
        }
    }

    @Test("a client that falls far behind is never cut: it catches up from the file and gets every event once, in order")
    func slowClientCatchesUp() async throws {
        let h = try await StreamHarness.start() { $0.subscriberQueueBytes = 64 << 10 }
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun()
        let url = server.base + "/api/sessions/\(run.id)/events"
        let slow = try await SSETestClient.Paused.connect(url)
        let total = 3000
        run.append(total, payloadSize: 4096)  // ~12 MB: more than the socket buffers and the queue hold
        try await eventually(10, "the catalog to read every line") {
            try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self).lineCount >= total
        }
        #expect(server.server.hub.subscriberCount == 1, "still subscribed: not cut")
        // More events while it catches up: it reads the file to the head, then rejoins the live feed.
        let reader = slow.resume()
        var lines = try await reader.workflowUntilClosed(atMost: 1000, timeout: 20).compactMap(\.line)
        run.append(200, from: total + 1)
        lines += try await reader.workflowUntilClosed(atMost: total + 200 - lines.count, timeout: 20).compactMap(\.line)
        #expect(lines == Array(1...(total + 200)), "every event exactly once, in order, on one connection")
        #expect(server.server.hub.subscriberCount == 1)
    }

    @Test("a client that reads nothing at all is disconnected after the stall timeout, and resumes without loss")
    func stalledClientIsDisconnected() async throws {
        let h = try await StreamHarness.start() {
            $0.subscriberQueueBytes = 64 << 10
            $0.streamStallTimeout = 1
        }
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun()
        let url = server.base + "/api/sessions/\(run.id)/events"
        let stalled = try await SSETestClient.Paused.connect(url)
        let listener = try await SSETestClient.connect(url)
        let total = 3000
        run.append(total, payloadSize: 4096)
        // The reading client keeps up; the silent one is closed once its write has waited a second.
        #expect(try await listener.workflow(count: total, timeout: 20).last?.line == total)
        try await eventually(15, "the silent subscriber to be disconnected") { server.server.hub.subscriberCount == 1 }
        // When it reads again: what reached it before the close, then the end of the stream (no `end` frame).
        let first = try await stalled.resume().messagesUntilClosed()
        #expect(!first.contains { $0.event == "end" })
        var lines = first.compactMap(\.line)
        #expect(lines.count < total)
        // Last-Event-ID brings the rest, as EventSource does.
        let again = try await SSETestClient.connect(url, headers: [("Last-Event-ID", first.last(where: { $0.id != nil })?.id ?? "0")])
        lines += try await again.workflowUntilClosed(atMost: total - lines.count, timeout: 20).compactMap(\.line)
        #expect(lines == Array(1...total), "every event exactly once, in order")
    }

    @Test("a workspace's ralph.yml is read inside the root only: a link to an outside config is not read")
    func configLinkedOut() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let outside = h.tmp.subdirectory("outside")
        try "event_loop:\n  max_iterations: 777\n".write(toFile: outside + "/ralph.yml", atomically: true, encoding: .utf8)
        let linked = h.root + "/linked"
        let plain = h.root + "/plain"
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linked + "/ralph.yml", withDestinationPath: outside + "/ralph.yml")
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        try "event_loop:\n  max_iterations: 12\n".write(toFile: plain + "/ralph.yml", atomically: true, encoding: .utf8)
        let start = [Fixture.record("task.start", "t", iteration: 0, hat: "loop", triggered: "planner")]
        let a = Fixture.id(Fixture.run(in: linked, name: "events-20260101-000000.jsonl", lines: start))
        let b = Fixture.id(Fixture.run(in: plain, name: "events-20260101-000001.jsonl", lines: start))
        try await Self.waitForRun(h.server, a, live: false)
        try await Self.waitForRun(h.server, b, live: false)
        #expect(try await HTTP.get(h.server.base + "/api/sessions/\(b)/status").json(Session.self).total == 12)
        #expect(try await HTTP.get(h.server.base + "/api/sessions/\(a)/status").json(Session.self).total == nil, "nothing read through the link")
    }

    @Test("a server with a client that reads nothing still stops promptly")
    func stopsWithAStalledClient() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data")) { $0.subscriberQueueBytes = 64 << 10 }
        let run = try LiveRun(workspace: root + "/proj")
        try await Self.waitForRun(server, run.id)
        let stalled = try await SSETestClient.Paused.connect(server.base + "/api/sessions/\(run.id)/events")
        run.append(3000, payloadSize: 4096)
        try await eventually(10, "the lines to be read") {
            try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self).lineCount >= 3000
        }
        let started = ContinuousClock.now
        try await withTimeout(10, "the server to stop") { await server.stop() }
        #expect(ContinuousClock.now - started < .seconds(5))
        _ = stalled
    }

    @Test("a client resuming after its run file was rewritten is told, and gets the new file from its first line")
    func rewrittenFileIsAnnounced() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun(appending: 100)
        let client = try await h.stream(run.id)
        let seen = try await client.workflow(count: 100)
        let lastID = try #require(seen.last?.id)
        #expect(seen.last?.line == 100)
        // The file is replaced by one with 150 other lines (more than the client saw).
        let replacement = run.file + ".new"
        let lines = (1...150).map { Fixture.record("rewritten", "new \($0)", iteration: $0, hat: "builder") }
        _ = FileManager.default.createFile(atPath: replacement, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(rename(replacement, run.file) == 0)
        try await eventually(5, "the new content") {
            try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self).lineCount == 150
        }
        let resumed = try await SSETestClient.connect(server.base + "/api/sessions/\(run.id)/events", headers: [("Last-Event-ID", lastID)])
        let reset = try await resumed.nextMessage()
        #expect(reset.event == "reset")
        #expect(reset.json["resumed_after"] as? String == lastID)
        #expect(reset.json["topic"] as? String == "stream.reset", "the original app decodes every data line as an event")
        let again = try await resumed.workflow(count: 150)
        #expect(again.map(\.line) == Array(1...150), "nothing of the new file skipped")
        #expect(again.first?.json["payload"] as? String == "new 1")

        // The same after a rewrite in place to the same length: the check of the line resumed after tells.
        let sameLength = try #require(again.last?.id)
        let handle = try #require(FileHandle(forWritingAtPath: run.file))
        try handle.truncate(atOffset: 0)
        try handle.close()
        let other = (1...150).map { Fixture.record("rewritten.again", "other \($0)", iteration: $0, hat: "builder") }
        _ = FileManager.default.createFile(atPath: run.file, contents: Data((other.joined(separator: "\n") + "\n").utf8))
        try await eventually(5, "the rewritten content") {
            let detail = try await HTTP.get(server.base + "/api/sessions/\(run.id)").json(SessionDetail.self)
            return detail.recentEvents.last?.objectValue?["topic"]?.stringValue == "rewritten.again"
        }
        let third = try await SSETestClient.connect(server.base + "/api/sessions/\(run.id)/events", headers: [("Last-Event-ID", sameLength)])
        #expect(try await third.nextMessage().event == "reset")
        let current = try await third.workflow(count: 150)
        #expect(current.first?.json["payload"] as? String == "other 1")
        // A client that resumes after an event the file still has is not reset.
        let middle = try #require(current[74].id)
        let still = try await SSETestClient.connect(server.base + "/api/sessions/\(run.id)/events", headers: [("Last-Event-ID", middle)])
        let next = try await still.nextMessage()
        #expect(next.event == "workflow" && next.line == 76)
    }

    @Test("a completed run replays its history, then sends end and closes")
    func completedRunEnds() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (server, root) = (h.server, h.root)
        let file = Fixture.run(
            in: root + "/done", name: "events-20260101-000000.jsonl",
            lines: [Fixture.record("task.start", "t", iteration: 0, hat: "loop", triggered: "planner"), Fixture.terminate("max_iterations", iterations: 3)]
        )
        let id = Fixture.id(file)
        try await Self.waitForRun(server, id, live: false)
        let client = try await SSETestClient.connect(server.base + "/api/sessions/\(id)/events")
        let messages = try await client.messagesUntilClosed()
        #expect(messages.map(\.event) == ["workflow", "workflow", "end"])
        let end = messages[2].json
        #expect(end["mode"] as? String == "complete")
        #expect(end["status"] as? String == "failed")
        #expect(end["reason"] as? String == "max_iterations")
        #expect(end["last_event_id"] as? Int == 2)
        #expect(messages[2].id == nil, "end carries no id, so Last-Event-ID stays at the last event")

        // Resuming at the end: just the end frame.
        let atEnd = try await SSETestClient.connect(server.base + "/api/sessions/\(id)/events", headers: [("Last-Event-ID", "2")])
        #expect(try await atEnd.messagesUntilClosed().map(\.event) == ["end"])
    }

    @Test("a live run that ends delivers its last events, then end")
    func liveRunEnds() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun(appending: 2)
        let client = try await h.stream(run.id)
        #expect(try await client.workflow(count: 2).count == 2)
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
        let run = try await h.liveRun(appending: 1)
        let client = try await h.stream(run.id)
        #expect(try await client.workflow(count: 1).count == 1)
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
        try await Self.waitForRun(first, run.id)
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

    @Test("an idle stream gets heartbeat comments")
    func heartbeats() async throws {
        let h = try await StreamHarness.start() { $0.heartbeatInterval = 0.2 }
        defer { h.stop() }
        let run = try await h.liveRun()
        let client = try await h.stream(run.id)
        var comments = 0
        while comments < 2 {
            if case .comment(let text) = try await client.next(timeout: 3) {
                #expect(text == "keep-alive")
                comments += 1
            }
        }
    }

    @Test("frames are byte-exact: retry, then id/event/data lines with one-line JSON")
    func framingBytes() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (server, root) = (h.server, h.root)
        let line = #"{"ts":"2026-02-05T08:18:22.668620490+00:00","iteration":5,"hat":"builder","topic":"build.done","triggered":"reviewer","payload":"multi\nline"}"#
        let objectPayload = #"{"payload":{"status":"success","n":1},"topic":"build.done","ts":"2026-02-05T09:00:00+00:00"}"#
        let file = Fixture.run(in: root + "/p", name: "events-20260205-000000.jsonl", lines: [line, objectPayload])
        let id = Fixture.id(file)
        try await Self.waitForRun(server, id, live: false)
        let client = try await SSETestClient.connect(server.base + "/api/sessions/\(id)/events")
        _ = try await client.messagesUntilClosed()
        let text = String(decoding: client.raw.value, as: UTF8.self)
        let expected =
            "retry: 2000\n\n"
            // The id is the line number and the check of the line: FNV-1a of `ts`, 0x1F and `topic` (8 hex digits).
            + "id: 1:9657f704\nevent: workflow\n"
            + #"data: {"id":"1","ts":"2026-02-05T08:18:22.668620490+00:00","iteration":5,"hat":"builder","topic":"build.done","triggered":"reviewer","payload":"multi\nline","type":"event.published"}"#
            + "\n\n"
            + "id: 2:df0a05d9\nevent: workflow\n"
            + #"data: {"id":"2","payload":"{\"status\":\"success\",\"n\":1}","topic":"build.done","ts":"2026-02-05T09:00:00+00:00","payload_json":{"status":"success","n":1},"type":"event.published"}"#
            + "\n\n"
        #expect(text.hasPrefix(expected))
        #expect(text.dropFirst(expected.count).hasPrefix("event: end\ndata: {"))
        #expect(text.hasSuffix("}\n\n"))
    }
}

extension SSETestClient.Item {
    func isRetry(_ ms: Int) -> Bool {
        if case .retry(let value) = self { return value == ms }
        return false
    }
}
