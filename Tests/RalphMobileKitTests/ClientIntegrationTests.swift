import Foundation
import RalphAPI
import RalphSimulator
import Testing
import TestSupport

@testable import RalphMobileKit

/// The client library against the real server on port 0, with real run files.
@Suite("Client against the real server")
@MainActor
struct ClientIntegrationTests {
    @Test("list → monitor → live events → server restart → resume with no gap → run ends → disconnected, no reconnect")
    func wholeJourney() async throws {
        var h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun(prompt: "The journey")

        // The list shows the run live, through the global stream.
        let list = SessionsListModel(client: h.client)
        list.policy = KitHarness.fastPolicy
        list.pollInterval = .seconds(60)
        await list.start()
        try await until(10, "the list's stream") { list.connection == .connected }
        #expect(list.sessions.map(\.id) == [id])
        #expect(list.sessions.first?.mode == .live)
        #expect(list.activeCount == 1)

        // The monitor follows it live.
        let monitor = SessionMonitor(client: h.client, sessionID: id)
        monitor.policy = KitHarness.fastPolicy
        await monitor.connect()
        try await until(10, "the monitor's stream") { monitor.connection == .connected }
        for i in 1...5 { try writer.record(topic: "step.before", payload: "before \(i)", iteration: i, hat: "builder") }
        try await until(10, "six events") { monitor.eventCount == 6 }
        try await until(10, "the list to count them") { list.sessions.first?.eventCount == 6 }

        // The server goes away; the run goes on writing.
        await h.server.stop()
        try await until(10, "the monitor to notice") { monitor.reconnectAttempts >= 1 }
        for i in 6...10 { try writer.record(topic: "step.while_down", payload: "down \(i)", iteration: i, hat: "reviewer") }

        // A new server on the same port: the monitor resumes after the last event it had, with no gap and no repeat.
        try await h.restart()
        try await until(10, "the monitor to reconnect") { monitor.connection == .connected }
        try await until(10, "the events written while the server was down") { monitor.eventCount == 11 }
        #expect(monitor.events.map(\.id) == Array((1...11).reversed()), "every event once, newest first")
        #expect(monitor.events.prefix(5).allSatisfy { $0.topic == "step.while_down" })
        try await until(10, "the list to reconnect") { list.connection == .connected }

        // The run ends: the monitor gets `end`, disconnects, and stays disconnected.
        try writer.terminate(reason: "completed", status: "All done.", iterations: 10, exitCode: 0)
        try await until(10, "the end of the run") { monitor.end != nil }
        try await until(10, "disconnected") { monitor.connection == .disconnected }
        #expect(monitor.end?.lastEventId == 12)
        #expect(monitor.eventCount == 12)
        #expect(!monitor.isSessionActive)
        try await until(10, "the list to see it complete") { list.sessions.first?.mode == .complete }
        #expect(list.activeCount == 0)
        try await Task.sleep(for: .milliseconds(800))  // twice the fast policy's longest delay
        #expect(monitor.connection == .disconnected)
        #expect(!monitor.isStreaming, "no reconnection after end")
        #expect(monitor.eventCount == 12)

        list.stop()
        await h.stop()
    }

    @Test("the sessions list follows runs live through GET /api/events, without polling")
    func listIsLive() async throws {
        let h = try await KitHarness.start()
        let list = SessionsListModel(client: h.client)
        list.pollInterval = .seconds(60)
        await list.start()
        try await until(10, "the list's stream") { list.connection == .connected }
        #expect(list.sessions.isEmpty)
        let (writer, id) = try await h.writeRun()
        try await until(10, "the new run") { list.sessions.contains { $0.id == id && $0.mode == .live } }
        #expect(!list.isPolling)
        try writer.terminate(reason: "completed", status: "done", iterations: 0, exitCode: 0)
        try await until(10, "the run to complete") { list.sessions.first { $0.id == id }?.mode == .complete }
        list.stop()
        #expect(list.connection == .disconnected)
        await h.stop()
    }

    @Test("behind a proxy that refuses event streams, the sessions list polls at its interval")
    func listFallsBackToPolling() async throws {
        let h = try await KitHarness.start()
        let proxy = try await StreamBlockingProxy.start(upstream: h.server.base)
        let list = SessionsListModel(client: try RalphClient(baseURL: proxy.base))
        list.pollInterval = .milliseconds(200)
        list.policy = KitHarness.fastPolicy
        await list.start()
        try await until(10, "polling") { list.isPolling }
        #expect(list.connection != .connected)
        let (writer, id) = try await h.writeRun()
        try await until(10, "the new run, by polling") { list.sessions.contains { $0.id == id } }
        #expect(list.lastError == nil)
        list.stop()
        writer.releaseLock()
        await proxy.stop()
        await h.stop()
    }

    @Test("every control reaches the run: pause, resume, emit, steer, answer, stop")
    func controls() async throws {
        let h = try await KitHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.2\nask: \"Which database?\"\nask_at: 1")
        let client = h.client
        try await eventually(10, "the question") { try await client.questions().contains { $0.sessionId == id } }
        let question = try #require(try await client.questions().first { $0.sessionId == id })
        #expect(question.questionText == "Which database?")
        let ack = try await client.answer(questionID: question.id, text: "Postgres")
        #expect(ack.success)

        #expect(try await client.pause(id).status == "paused")
        #expect(try await client.status(id).mode == .paused)
        do {
            _ = try await client.pause(id)
            Issue.record("pausing twice should be a conflict")
        } catch {
            guard case .conflict = error else { throw error }
        }
        #expect(try await client.resume(id).status == "resumed")
        let emitted = try await client.emit(id, topic: "build.blocked", payload: try JSONParser.parse(#"{"reason":"manual"}"#))
        #expect(emitted.success && emitted.topic == "build.blocked")
        // Started by the server, so in ralph's RPC mode: guidance and steer are acknowledged by ralph.
        let steered = try await client.steer(id, message: "Prefer small commits")
        #expect(steered.status == "acknowledged" && steered.appliesTo == "next" && steered.via == "rpc")
        let urgent = try await client.steer(id, message: "Check the failing test first", urgent: true)
        #expect(urgent.status == "acknowledged" && urgent.appliesTo == "current" && urgent.acknowledgement == "Check the failing test first")
        let stopped = try await client.stop(id, force: true)
        #expect(stopped.terminated && stopped.kind == "forced")
        do {
            _ = try await client.stop(id)
            Issue.record("stopping a finished run should say it is not running")
        } catch {
            guard case .notRunning = error else { throw error }
        }
        let detail = try await client.detail(id)
        #expect(detail.session.mode == .complete)
        #expect(detail.stopReason?.reason == "interrupted")
        await h.stop()
    }

    @Test("errors are typed from the server's prefixes")
    func typedErrors() async throws {
        let h = try await KitHarness.start()
        let client = h.client
        do {
            _ = try await client.status("ffffffffffffffff")
            Issue.record("an unknown session should be not found")
        } catch {
            guard case .sessionNotFound = error else { throw error }
        }
        let (writer, id) = try await h.writeRun()
        do {
            _ = try await client.emit(id, topic: "bad topic!")
            Issue.record("a bad topic should be refused")
        } catch {
            guard case .invalidTopic = error else { throw error }
        }
        do {
            _ = try await client.config("../../etc/passwd")
            Issue.record("a path outside the workspace should be refused")
        } catch {
            guard case .invalidPath = error else { throw error }
        }
        do {
            _ = try await client.start(StartSessionRequest(configPath: "missing.yml", prompt: "x"))
            Issue.record("a missing config should be refused")
        } catch {
            guard case .configNotFound = error else { throw error }
        }
        do {
            _ = try await client.setTaskStatus("no-such-task", status: "closed")
            Issue.record("an unknown task should be not found")
        } catch {
            guard case .notFound(let prefix, _) = error else { throw error }
            #expect(prefix == "task_not_found")
        }
        writer.releaseLock()
        await h.stop()

        // Nothing listens any more.
        do {
            _ = try await client.sessions()
            Issue.record("a stopped server should be unreachable")
        } catch {
            guard case .unreachable = error else { throw error }
            #expect(error.isTransient)
        }
    }

    @Test("a server with a key: none or a wrong one is unauthorized, the right one works, streams too")
    func keys() async throws {
        let h = try await KitHarness.start(apiKey: "rmk_test_secret_0123456789")
        #expect(try await h.client.sessions().isEmpty)
        let anonymous = try RalphClient(baseURL: h.server.base)
        let wrong = try RalphClient(baseURL: h.server.base, apiKey: "rmk_wrong")
        for client in [anonymous, wrong] {
            do {
                _ = try await client.sessions()
                Issue.record("expected unauthorized")
            } catch {
                #expect(error == .unauthorized)
            }
        }
        let (writer, id) = try await h.writeRun()
        let refused = SessionMonitor(client: wrong, sessionID: id)
        await refused.connect()
        #expect(refused.connection == .error(RalphClientError.unauthorized.description))
        let monitor = SessionMonitor(client: h.client, sessionID: id)
        await monitor.connect()
        try await until(10, "connected with the key") { monitor.connection == .connected }
        monitor.disconnect()
        writer.releaseLock()
        await h.stop()
    }
}
