import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Clients that read slowly or not at all: never cut while they read, disconnected when they stall, and never in
/// the way of the server stopping.
@Suite("Session event stream: slow and stalled clients")
struct EventStreamBackpressureTests {
    @Test("a client that falls far behind is never cut: it catches up from the file and gets every event once, in order")
    func slowClientCatchesUp() async throws {
        let h = try await StreamHarness.start() { $0.subscriberQueueBytes = 64 << 10 }
        defer { h.stop() }
        let server = h.server
        let run = try await h.liveRun()
        let slow = try await SSETestClient.Paused.connect(h.eventsURL(run.id))
        let total = 3000
        run.append(total, payloadSize: 4096)  // ~12 MB: more than the socket buffers and the queue hold
        try await eventually(10, "the catalog to read every line") { try await h.detail(run.id).lineCount >= total }
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
        let stalled = try await SSETestClient.Paused.connect(h.eventsURL(run.id))
        let listener = try await h.stream(run.id)
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
        let again = try await h.resume(run.id, after: first.last(where: { $0.id != nil })?.id ?? "0")
        lines += try await again.workflowUntilClosed(atMost: total - lines.count, timeout: 20).compactMap(\.line)
        #expect(lines == Array(1...total), "every event exactly once, in order")
    }

    @Test("a server with a client that reads nothing still stops promptly")
    func stopsWithAStalledClient() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data")) { $0.subscriberQueueBytes = 64 << 10 }
        let run = try LiveRun(workspace: root + "/proj")
        try await StreamHarness.waitForRun(server, run.id)
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

    @Test("a server stops promptly when the last frame its loop wrote filled a client that reads nothing")
    func stopsAfterALoopWriteFilledAStalledClient() async throws {
        let h = try await StreamHarness.start()
        let run = try await h.liveRun()
        let stalled = try await SSETestClient.Paused.connect(h.eventsURL(run.id) + "?history=0")
        try await eventually(10, "the subscription") { h.server.server.hub.subscriberCount == 1 }
        let queue = try #require(h.server.server.hub.runs.queues.first)
        // One event of 8 MB: the loop writes it (the writer sleeps, the connection had room), and it fills the socket
        // buffers of a client that reads nothing. Nothing follows, so the writer is not woken before the stop.
        run.append(1, from: 1, payloadSize: 8 << 20)
        try await eventually(10, "the loop to have written the event") { queue.directWrites >= 1 }
        let started = ContinuousClock.now
        try await withTimeout(10, "the server to stop") { await h.server.stop() }
        #expect(ContinuousClock.now - started < .seconds(5), "the last chunk did not wait for the client")
        _ = stalled
    }
}
