import Foundation
import RalphAPI
import RalphSimulator
import Testing
import TestSupport

@testable import RalphMobileKit

/// What the iOS app's shell added to the SDK: `whoAmI()` and `SessionMonitor.catchUp()`.
@Suite("whoami and a session monitor's catch-up", .serialized)
@MainActor
struct WhoAmIAndCatchUpTests {
    @Test("whoAmI: admin on a trusted loopback server; the key's role and id on a server with keys; a wrong key is refused")
    func whoAmI() async throws {
        let open = try await KitHarness.start()
        #expect(try await open.client.whoAmI() == WhoAmI(role: .admin, keyID: nil, authRequired: false, via: "trusted"))
        await open.stop()

        let h = try await KitHarness.start(apiKey: "rmk_whoami_admin_0123456789abcd")
        #expect(try await h.client.whoAmI() == WhoAmI(role: .admin, keyID: "cli", authRequired: true, via: "key"))
        let viewer = try await h.client.createKey(role: .viewer, name: "phone")
        let asViewer = try RalphClient(baseURL: h.server.base, apiKey: viewer.secret)
        #expect(try await asViewer.whoAmI() == WhoAmI(role: .viewer, keyID: viewer.key.id, authRequired: true, via: "key"))
        let wrong = try RalphClient(baseURL: h.server.base, apiKey: "rmk_wrong_0000000000000000000")
        await #expect(throws: RalphClientError.unauthorized) { try await wrong.whoAmI() }
        let none = try RalphClient(baseURL: h.server.base)
        await #expect(throws: RalphClientError.unauthorized) { try await none.whoAmI() }
        await h.stop()
    }

    @Test("catchUp reads the events a finished run wrote after the newest shown, once, and stops at its end")
    func catchUpAfterTheEnd() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = SessionMonitor(client: h.client, sessionID: id)
        m.policy = KitHarness.fastPolicy
        await m.connect()
        try await until(10, "the first event") { m.connection == .connected && m.eventCount == 1 }
        m.disconnect()
        for i in 1...4 { try writer.record(topic: "build.step", payload: "away \(i)", iteration: i, hat: "builder") }
        try writer.terminate(reason: "completed", status: "done", iterations: 4, exitCode: 0)
        let client = h.client
        try await eventually(10, "the run to complete") { try await client.status(id).mode == .complete }

        // Connecting again does not stream a finished run, and keeps what was shown: the gap is still there.
        await m.connect()
        #expect(!m.isStreaming && m.eventCount == 1)
        try await withTimeout(10, "the catch-up") { await m.catchUp() }
        #expect(m.events.map(\.id) == [6, 5, 4, 3, 2, 1])
        #expect(m.eventCount == 6)
        #expect(m.events.first?.topic == "loop.terminate")
        #expect(!m.isStreaming)
        // Again: nothing new, nothing twice.
        try await withTimeout(10, "a second catch-up") { await m.catchUp() }
        #expect(m.eventCount == 6)
        await h.stop()
    }

    @Test("catchUp does nothing while streaming, for an active session, or before anything was shown")
    func catchUpNoOps() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = SessionMonitor(client: h.client, sessionID: id)
        m.policy = KitHarness.fastPolicy
        try await withTimeout(5, "nothing shown yet") { await m.catchUp() }
        #expect(m.events.isEmpty)

        await m.connect()
        try await until(10, "connected") { m.connection == .connected && m.eventCount == 1 }
        try await withTimeout(5, "while streaming") { await m.catchUp() }
        #expect(m.isStreaming && m.eventCount == 1)

        // Active but not streamed (disconnected by hand): a catch-up would never end, so it is not started.
        m.disconnect()
        try writer.record(topic: "build.step", payload: "later", iteration: 1, hat: "builder")
        try await withTimeout(5, "an active session") { await m.catchUp() }
        #expect(m.eventCount == 1, "connect() is what brings a live session up to date")
        writer.releaseLock()
        await h.stop()
    }
}
