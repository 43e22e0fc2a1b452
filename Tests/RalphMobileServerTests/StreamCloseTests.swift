import Foundation
import Testing

@testable import RalphMobileServer

#if canImport(Glibc)
import Glibc
#endif

/// A client that goes away is let go at once, even when there is nothing to send it: its stream's task ends and its
/// subscription with it (no write needed to find out).
@Suite("Event streams: a client that goes away", .serialized)
struct StreamCloseTests {
    @Test("session and global streams whose clients close, with nothing to send them, are unsubscribed at once")
    func idleStreamsEndWhenTheirClientsClose() async throws {
        // Heartbeats far apart, so that no write finds the closed connection first.
        let h = try await StreamHarness.start() { $0.heartbeatInterval = 600 }
        defer { h.stop() }
        let run = try await h.liveRun()
        let port = try #require(URL(string: h.server.base)?.port)
        let hub = h.server.server.hub
        let paths = Array(repeating: "/api/sessions/\(run.id)/events?history=0", count: 20) + Array(repeating: "/api/events", count: 20)
        let fleet = try SSEFleet(port: port, paths: paths)
        try await eventually(10, "the 40 subscriptions") { hub.subscriberCount == 40 }
        let started = ContinuousClock.now
        fleet.close()
        try await eventually(5, "every stream to let its subscription go") { hub.subscriberCount == 0 }
        #expect(ContinuousClock.now - started < .seconds(3))
        // The run's stream still serves the next client.
        let again = try await h.stream(run.id, query: "?history=0")
        run.append(1)
        #expect(try await again.workflow(count: 1, timeout: 10).first?.line == 1)
    }
}
