import Foundation
import RalphAPI
import RalphSimulator
import Testing
import TestSupport

@testable import RalphMobileKit

/// What the app relies on when it closes its streams in the background and opens them again on return: a stopped list
/// stays stopped, a monitor disconnected and connected again keeps the new stream, and a run that ended meanwhile is
/// caught up to its end.
@Suite("Suspending and resuming the SDK's live models")
@MainActor
struct SessionFeedSuspendTests {
    @Test("a stopped sessions list neither polls nor streams: a run that appears afterwards is not fetched")
    func stoppedListStaysStopped() async throws {
        let h = try await KitHarness.start()
        let list = SessionsListModel(client: h.client)
        list.pollInterval = .milliseconds(100)
        await list.start()
        try await until(10, "the global stream") { list.connection == .connected }
        list.stop()
        #expect(list.connection == .disconnected)
        let (writer, _) = try await h.writeRun("later")
        // Several poll intervals: a poller left behind by stop() would have fetched the new run by now.
        try await Task.sleep(for: .milliseconds(800))
        #expect(list.sessions.isEmpty, "nothing was fetched after stop()")
        #expect(!list.isPolling)
        #expect(list.connection == .disconnected)
        // Started again, it reads the list and streams.
        await list.start()
        #expect(list.sessions.count == 1)
        try await until(10, "the global stream again") { list.connection == .connected }
        list.stop()
        writer.releaseLock()
        await h.stop()
    }

    @Test("disconnect() then connect() at once keeps the new stream, which resumes after the last event shown")
    func reconnectAtOnceKeepsNewStream() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = SessionMonitor(client: h.client, sessionID: id)
        m.policy = KitHarness.fastPolicy
        await m.connect()
        try await until(10, "connected") { m.connection == .connected && m.eventCount == 1 }
        m.disconnect()
        try writer.record(topic: "while.away", payload: "one", iteration: 1, hat: "builder")
        await m.connect()
        try await until(10, "the event written while away") { m.events.first?.topic == "while.away" }
        // The first stream's end must not clear the second: give it every chance to, then check.
        try await Task.sleep(for: .milliseconds(300))
        #expect(m.isStreaming)
        #expect(m.connection == .connected)
        try writer.record(topic: "after.return", payload: "two", iteration: 2, hat: "builder")
        try await until(10, "a live event on the new stream") { m.events.first?.topic == "after.return" }
        #expect(m.eventCount == 3)
        #expect(m.events.map(\.topic) == ["after.return", "while.away", "task.start"], "each event once")
        m.disconnect()
        writer.releaseLock()
        await h.stop()
    }

    @Test("a run that ended while disconnected is caught up on connect(): its last events, then the end, no reconnecting")
    func endedWhileAwayIsCaughtUp() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = SessionMonitor(client: h.client, sessionID: id)
        m.policy = KitHarness.fastPolicy
        await m.connect()
        try await until(10, "the first event") { m.eventCount == 1 && m.connection == .connected }
        m.disconnect()
        for n in 1...3 { try writer.record(topic: "step.\(n)", payload: "p\(n)", iteration: n, hat: "builder") }
        try writer.terminate(reason: "completed", status: "done", iterations: 3, exitCode: 0)
        let client = h.client
        try await eventually(10, "the run to complete") { try await client.status(id).mode == .complete }

        await m.connect()
        try await until(10, "the end of the run") { m.end != nil && m.connection == .disconnected }
        #expect(m.events.map(\.topic) == ["loop.terminate", "step.3", "step.2", "step.1", "task.start"])
        #expect(m.eventCount == 5)
        #expect(m.end?.status == .completed)
        #expect(!m.isSessionActive)
        // Connecting once more opens nothing: the run is over and everything was received.
        await m.connect()
        #expect(!m.isStreaming)
        #expect(m.connection == .disconnected)
        await h.stop()
    }

    @Test("hats(forSession:) reads the hats of the run's own workspace, not the first root's")
    func hatsOfTheRunsWorkspace() async throws {
        let h = try await KitHarness.start()
        let project = h.root + "/sub"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        try "hats:\n  scout:\n    name: scout\n    description: Looks around\n    triggers: [task.start]\n    publishes: [scout.done]\n"
            .write(toFile: project + "/ralph.yml", atomically: true, encoding: .utf8)
        let (writer, id) = try await h.writeRun("sub")
        let hats = try await h.client.hats(forSession: id)
        #expect(hats.map(\.id) == ["scout"])
        #expect(hats.first?.triggers == ["task.start"])
        #expect(hats.first?.sources == ["ralph.yml"])
        #expect(try await h.client.hats().isEmpty, "the root defines none")
        await #expect(throws: RalphClientError.self) { try await h.client.hats(forSession: "0123456789abcdef") }
        writer.releaseLock()
        await h.stop()
    }
}
