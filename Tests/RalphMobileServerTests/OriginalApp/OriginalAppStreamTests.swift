import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The original iOS app's stream behaviour (``OriginalAppStream``) against the real server and fake-ralph: no
/// reconnect loop after `end`, no second replay after a drop, a full replay when its screen opens; our own clients
/// keep the clean `end` + close.
@Suite("Original iOS app: its session stream", .serialized)
struct OriginalAppStreamTests {
    static func harness() async throws -> SteeringHarness {
        try await SteeringHarness.start { $0.heartbeatInterval = 0.4 }
    }

    /// Every event id the run's file holds, as our own client replays them.
    static func allIDs(_ h: SteeringHarness, _ id: String) async throws -> [String] {
        let ours = try await h.stream(id)
        return try await ours.messagesUntilClosed(timeout: 10).filter { $0.event == "workflow" }.compactMap(\.id)
    }

    @Test("a run that ends: the app sees each event once and one end, the connection stays open with heartbeats, and it never reconnects")
    func noReconnectLoopAfterEnd() async throws {
        let h = try await Self.harness()
        defer { h.stop() }
        h.config("iterations: 3\npace: 0.3")
        let run = try await h.startRun()
        let app = OriginalAppStream(base: h.server.base, sessionID: run.id)
        #expect(try await app.openScreen(), "a live run is active for the app")
        try await app.stream(for: 6)
        let seen = app.seen.withLock { $0 }
        let ids = seen.events.compactMap(\.id)
        #expect(seen.reconnects == 0 && seen.ends == 1, "\(seen.reconnects) reconnects, \(seen.ends) ends")
        #expect(Set(ids).count == ids.count, "no event twice")
        #expect(ids == (try await Self.allIDs(h, run.id)), "every event of the run, in order")
        #expect(seen.events.last?.topic == "loop.terminate")
    }

    @Test("the stream held open after end carries heartbeats; our clients (header or ?end=close) get end and the close")
    func heldStreamHeartbeats() async throws {
        let h = try await Self.harness()
        defer { h.stop() }
        h.config("iterations: 1\npace: 0.05")
        let run = try await h.startRun()
        try await eventually(10, "the run to end") { try await h.status(run.id).mode == .complete }
        let legacy = try await SSETestClient.connect(h.server.base + "/api/sessions/\(run.id)/events", legacy: true)
        var sawEnd = false
        var heartbeatsAfterEnd = 0
        while heartbeatsAfterEnd < 2 {
            switch try await legacy.next(timeout: 3) {
            case .message(let m) where m.event == "end": sawEnd = true
            case .comment: if sawEnd { heartbeatsAfterEnd += 1 }
            case .closed, .failed: throw TestFailure("the stream of a client that does not understand end was closed")
            default: continue
            }
        }
        #expect(sawEnd)
        legacy.cancel()

        // Ours: `end`, then the server closes (the header, or `?end=close` for EventSource).
        let ours = try await h.stream(run.id)
        #expect(try await ours.messagesUntilClosed(timeout: 5).last?.event == "end")
        let query = try await SSETestClient.connect(h.server.base + "/api/sessions/\(run.id)/events?end=close", legacy: true)
        #expect(try await query.messagesUntilClosed(timeout: 5).last?.event == "end")
    }

    @Test("a drop on a live run: the app reconnects without Last-Event-ID and gets what it missed, nothing twice")
    func dropResumes() async throws {
        let h = try await Self.harness()
        defer { h.stop() }
        h.config("iterations: 8\npace: 0.5")
        let run = try await h.startRun()
        let app = OriginalAppStream(base: h.server.base, sessionID: run.id)
        #expect(try await app.openScreen())
        try await app.stream(for: 9, dropAfter: 3)
        let seen = app.seen.withLock { $0 }
        let ids = seen.events.compactMap(\.id)
        #expect(seen.reconnects == 1, "one reconnect, after the drop (none after the end): \(seen.reconnects)")
        #expect(Set(ids).count == ids.count, "no event twice: \(ids)")
        #expect(ids == (try await Self.allIDs(h, run.id)), "no gap")
        #expect(seen.ends == 1)
    }

    @Test("opening the screen again (status, then the stream) replays the history once more, as the app expects")
    func reopenedScreenReplays() async throws {
        let h = try await Self.harness()
        defer { h.stop() }
        h.config("iterations: 6\npace: 0.4")
        let run = try await h.startRun()
        let app = OriginalAppStream(base: h.server.base, sessionID: run.id)
        #expect(try await app.openScreen())
        try await app.stream(for: 1.5)
        let first = app.seen.withLock { $0.events.count }
        #expect(first > 0)
        #expect(try await app.openScreen(), "still live")
        try await app.stream(for: 1.5)
        let again = app.seen.withLock { $0.events }
        #expect(again.count >= first, "the reopened screen starts from the history again: \(again.count) after \(first)")
        #expect(again.first?.topic == "task.start")
    }
}
