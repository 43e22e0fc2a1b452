import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// What the stream makes of the lines of a run file as they come: partial, broken or huge lines, and the workspace's
/// config read beside them.
@Suite("Session event stream: the lines of a run file")
struct EventStreamLineTests {
    @Test("a partial line is held until its newline arrives, then delivered once")
    func partialLines() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (run, client, replayed) = try await h.streamedRun(appending: 1)
        #expect(replayed.map(\.line) == [1])

        let line = Array(Fixture.record("build.done", "split in three", iteration: 2, hat: "builder").utf8)
        Fixture.appendRaw(Array(line[0..<10]), to: run.file)
        try await Task.sleep(for: .milliseconds(300))
        Fixture.appendRaw(Array(line[10..<40]), to: run.file)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await h.detail(run.id).lineCount == 1, "a partial line is not a line yet")
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
        let (run, client, replayed) = try await h.streamedRun(appending: 1)
        #expect(replayed.map(\.line) == [1])

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
        let detail = try await h.detail(run.id)
        #expect(detail.lineCount == 8)
        #expect(detail.malformedLines == 3)
        #expect(detail.session.eventCount == 4)
        // Replay reads the same numbering back from the file.
        let replay = try await h.stream(run.id, query: "?history=all")
        #expect(try await replay.workflow(count: 4, timeout: 10).map(\.line) == [1, 5, 6, 8])
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
        let a = try await h.finishedRun("linked", lines: start)
        let b = try await h.finishedRun("plain", name: "events-20260101-000001.jsonl", lines: start)
        #expect(try await HTTP.get(h.server.base + "/api/sessions/\(b)/status").json(Session.self).total == 12)
        #expect(try await HTTP.get(h.server.base + "/api/sessions/\(a)/status").json(Session.self).total == nil, "nothing read through the link")
    }
}
