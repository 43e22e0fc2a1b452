import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// A run file replaced, truncated or rewritten under the server: clients start over, and are told when they resume.
@Suite("Session event stream: rewritten run files")
struct EventStreamRewriteTests {
    /// `count` records of topic `topic`, whose payloads are `"<prefix> 1"`...
    static func lines(_ count: Int, topic: String = "rewritten", prefix: String = "new") -> [String] {
        (1...count).map { Fixture.record(topic, "\(prefix) \($0)", iteration: $0, hat: "builder") }
    }

    @Test("a truncated or replaced file is read again from the start")
    func fileReplacement() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (run, client, replayed) = try await h.streamedRun(appending: 5)
        #expect(replayed.count == 5)

        // Replace the file (write elsewhere, rename over): new content, ids restart.
        run.replace(with: Self.lines(2))
        // Connected clients are closed so they start over.
        #expect(try await client.messagesUntilClosed().isEmpty)
        try await eventually(5, "the new content") { try await h.detail(run.id).lineCount == 2 }
        // A client resuming from an id past the new end gets the new file from the start.
        let resumed = try await h.resume(run.id, after: "5")
        let again = try await resumed.workflow(count: 2)
        #expect(again.map { $0.json["payload"] as? String } == ["new 1", "new 2"])

        // Truncation in place.
        try run.truncate()
        run.append(1, from: 1)
        try await eventually(5, "the truncated file to be re-read") {
            let detail = try await h.detail(run.id)
            return detail.lineCount == 1 && detail.session.eventCount == 1
        }
    }

    @Test("a client resuming after its run file was rewritten is told, and gets the new file from its first line")
    func rewrittenFileIsAnnounced() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (run, _, seen) = try await h.streamedRun(appending: 100)
        let lastID = try #require(seen.last?.id)
        #expect(seen.last?.line == 100)
        // The file is replaced by one with 150 other lines (more than the client saw).
        run.replace(with: Self.lines(150))
        try await eventually(5, "the new content") { try await h.detail(run.id).lineCount == 150 }
        let resumed = try await h.resume(run.id, after: lastID)
        let reset = try await resumed.nextMessage()
        #expect(reset.event == "reset")
        #expect(reset.json["resumed_after"] as? String == lastID)
        #expect(reset.json["topic"] as? String == "stream.reset", "the original app decodes every data line as an event")
        let again = try await resumed.workflow(count: 150)
        #expect(again.map(\.line) == Array(1...150), "nothing of the new file skipped")
        #expect(again.first?.json["payload"] as? String == "new 1")

        // The same after a rewrite in place to the same length: the check of the line resumed after tells.
        let sameLength = try #require(again.last?.id)
        try run.truncate()
        let other = Self.lines(150, topic: "rewritten.again", prefix: "other")
        _ = FileManager.default.createFile(atPath: run.file, contents: Data((other.joined(separator: "\n") + "\n").utf8))
        try await eventually(5, "the rewritten content") {
            try await h.detail(run.id).recentEvents.last?.objectValue?["topic"]?.stringValue == "rewritten.again"
        }
        let third = try await h.resume(run.id, after: sameLength)
        #expect(try await third.nextMessage().event == "reset")
        let current = try await third.workflow(count: 150)
        #expect(current.first?.json["payload"] as? String == "other 1")
        // A client that resumes after an event the file still has is not reset.
        let middle = try #require(current[74].id)
        let still = try await h.resume(run.id, after: middle)
        let next = try await still.nextMessage()
        #expect(next.event == "workflow" && next.line == 76)
    }
}
