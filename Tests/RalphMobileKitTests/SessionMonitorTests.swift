import Foundation
import RalphAPI
import RalphSimulator
import Testing
import TestSupport

@testable import RalphMobileKit

/// The original app's session-monitor rules, one test per rule, against the real server and real run files.
@Suite("Session monitor rules")
@MainActor
struct SessionMonitorTests {
    func monitor(_ h: KitHarness, _ id: String) -> SessionMonitor {
        let monitor = SessionMonitor(client: h.client, sessionID: id)
        monitor.policy = KitHarness.fastPolicy
        return monitor
    }

    @Test("isSessionActive is true when the server says live, false when it says complete")
    func activeFollowsServerMode() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let live = monitor(h, id)
        await live.connect()
        #expect(live.session?.mode == .live)
        #expect(live.isSessionActive)
        live.disconnect()

        try writer.terminate(reason: "completed", status: "done", iterations: 0, exitCode: 0)
        let client = h.client
        try await eventually(5, "the run to complete") { try await client.status(id).mode == .complete }
        let done = monitor(h, id)
        await done.connect()
        #expect(done.session?.mode == .complete)
        #expect(!done.isSessionActive)
        await h.stop()
    }

    @Test("a session paused from this client stays active (the server says paused) and its stream stays open")
    func pausedFromThisClientStaysActiveAndStreaming() async throws {
        let h = try await KitHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.3")
        let m = monitor(h, id)
        await m.connect()
        try await until(10, "connected") { m.connection == .connected }

        try await m.pause()
        #expect(m.pausedFromThisClient)
        #expect(m.session?.mode == .paused, "the server reports the pause")
        #expect(m.isSessionActive, "paused from this client: still active")
        // The stream stays open: an event written while paused still arrives, on the same connection.
        _ = try await m.emit(topic: "note.while_paused", payload: .string("still here"))
        try await until(10, "the event emitted while paused") { m.events.first?.topic == "note.while_paused" }
        #expect(m.connection == .connected)
        #expect(m.isStreaming)
        #expect(m.reconnectAttempts == 0)
        #expect(m.events.filter { $0.topic == "note.while_paused" }.count == 1)

        try await m.resume()
        #expect(!m.pausedFromThisClient)
        #expect(m.session?.mode == .live)
        _ = try await m.stop()
        try await until(10, "the end of the run") { m.end != nil && m.connection == .disconnected }
        #expect(!m.isSessionActive)
        await h.stop()
    }

    @Test("a live session is streamed at once: the stream is open when connect() returns, connected within 2 s")
    func liveConnectsWithinTwoSeconds() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = monitor(h, id)
        #expect(m.connection == .disconnected)
        await m.connect()
        // No waiting before connecting: the request is on its way when connect() returns.
        #expect(m.isStreaming)
        #expect(m.connection == .connecting || m.connection == .connected)
        // 2 s on an idle machine (the rule); more room when the whole suite loads both cores.
        try await until(10, "connected") { m.connection == .connected }
        m.disconnect()
        #expect(m.connection == .disconnected)
        #expect(!m.isStreaming)
        writer.releaseLock()
        await h.stop()
    }

    @Test("a complete session is shown disconnected, never streamed, with its events visible")
    func completeNeverStreams() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        for i in 1...3 { try writer.record(topic: "build.task", payload: "step \(i)", iteration: i, hat: "planner") }
        try writer.terminate(reason: "completed", status: "done", iterations: 3, exitCode: 0)
        let client = h.client
        try await eventually(5, "the run to complete") { try await client.status(id).mode == .complete }

        let m = monitor(h, id)
        await m.connect()
        #expect(m.connection == .disconnected)
        #expect(!m.isStreaming, "no stream is opened for a finished session")
        #expect(m.events.map(\.topic) == ["loop.terminate", "build.task", "build.task", "build.task", "task.start"], "its events stay visible, newest first")
        // Nothing connects later either.
        try await Task.sleep(for: .milliseconds(500))
        #expect(m.connection == .disconnected)
        #expect(!m.isStreaming)
        await h.stop()
    }

    @Test("a watched session that ends is disconnected without reconnecting, and keeps its events")
    func endedSessionKeepsEvents() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = monitor(h, id)
        await m.connect()
        try await until(10, "connected") { m.connection == .connected }
        try writer.record(topic: "build.done", payload: "ok", iteration: 1, hat: "builder")
        try writer.terminate(reason: "completed", status: "done", iterations: 1, exitCode: 0)
        try await until(10, "the end frame") { m.end != nil && m.connection == .disconnected }
        #expect(m.end?.status == .completed)
        #expect(m.events.map(\.topic) == ["loop.terminate", "build.done", "task.start"])
        try await Task.sleep(for: .milliseconds(600))  // longer than the fast policy's largest delay
        #expect(m.connection == .disconnected)
        #expect(!m.isStreaming)
        #expect(m.reconnectAttempts == 0)
        await h.stop()
    }

    @Test("disconnecting cancels the refresh the end of a run started: it reads nothing and reports nothing")
    func disconnectCancelsPendingRefresh() async throws {
        let h = try await KitHarness.start()
        // The writer holds the run's loop lock: kept until the end, the run stays live on the server.
        let (writer, id) = try await h.writeRun()
        defer { withExtendedLifetime(writer) {} }
        let frame = StreamEnd(mode: .complete, status: .completed, reason: "completed", lastEventId: 1, ts: Timestamp.now())
        let end = String(decoding: try WireJSON.encode(frame), as: UTF8.self)
        // Kept: the refresh runs, reads the server's word (the run is still live there) and ends.
        let kept = monitor(h, id)
        await kept.connect()
        kept.apply(.end(end))
        #expect(kept.session?.mode == .complete, "the end frame's word, before the refresh answers")
        #expect(kept.tasks.count == 1, "the refresh is the monitor's own")
        await kept.tasks.settle()
        #expect(kept.session?.mode == .live, "the refresh read the server's word: \(String(describing: kept.session?.mode)), \(String(describing: kept.lastError))")
        #expect(kept.tasks.count == 0)
        kept.disconnect()
        // Disconnected before it ran: cancelled, nothing read, nothing reported.
        let stopped = monitor(h, id)
        await stopped.connect()
        stopped.apply(.end(end))
        stopped.disconnect()
        await stopped.tasks.settle()
        #expect(stopped.tasks.count == 0)
        #expect(stopped.session?.mode == .complete, "the cancelled refresh did not read the server's word")
        #expect(stopped.lastError == nil, "a cancellation is not an error")
        await h.stop()
    }

    @Test("events are newest first and capped (oldest dropped) while the count counts every event once")
    func newestFirstCapped() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        for i in 1...11 { try writer.record(topic: "step.\(i)", payload: "p\(i)", iteration: i, hat: "builder") }
        let m = monitor(h, id)
        m.eventCap = 5
        await m.connect()
        try await until(10, "12 events") { m.eventCount == 12 }
        #expect(m.events.map(\.id) == [12, 11, 10, 9, 8])
        #expect(m.events.first?.topic == "step.11")
        try writer.record(topic: "step.12", payload: "p12", iteration: 12, hat: "builder")
        try await until(10, "the 13th event") { m.eventCount == 13 }
        #expect(m.events.map(\.id) == [13, 12, 11, 10, 9])
        m.disconnect()
        writer.releaseLock()
        await h.stop()
    }

    @Test("the connection goes connecting → connected → reconnecting(n) while the server is away → connected")
    func connectionStates() async throws {
        var h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = monitor(h, id)
        var seen: [ConnectionState] = []
        let recorder = Task { @MainActor in
            while !Task.isCancelled {
                if seen.last != m.connection { seen.append(m.connection) }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        await m.connect()
        try await until(10, "connected") { m.connection == .connected }
        await h.server.stop()
        try await until(10, "two failed attempts") { m.reconnectAttempts >= 2 }
        if case .reconnecting(let n) = m.connection { #expect(n == m.reconnectAttempts) }
        try await h.restart()
        try await until(10, "reconnected") { m.connection == .connected && seen.last == .connected }
        #expect(m.reconnectAttempts == 0, "reset once connected again")
        recorder.cancel()
        #expect(seen.first == .disconnected, "before connect()")
        // `connecting` can be too short to be sampled on an idle machine; apart from it, `connected` comes first.
        #expect(seen.dropFirst().first { $0 != .connecting } == .connected)
        #expect(seen.contains(.reconnecting(attempt: 1)))
        #expect(seen.contains(.reconnecting(attempt: 2)))
        #expect(seen.last == .connected)
        m.disconnect()
        writer.releaseLock()
        await h.stop()
    }

    @Test("a run file rewritten while watched: the monitor is told, drops what it showed and shows the new file from its first line")
    func rewrittenFile() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        for n in 1...30 { try writer.record(topic: "build.note", payload: "old \(n)", iteration: n, hat: "builder") }
        let m = monitor(h, id)
        await m.connect()
        try await until(10, "the old events") { m.events.first?.payload == "old 30" }
        // The run's file is replaced by one with more lines than were shown, none of them the same.
        let replacement = writer.eventsFile + ".new"
        let lines = (1...60).map { #"{"ts":"2026-03-01T10:00:\#(String(format: "%02d", $0 % 60)).123456789+00:00","iteration":1,"hat":"builder","topic":"rewritten","payload":"new \#($0)"}"# }
        try (lines.joined(separator: "\n") + "\n").write(toFile: replacement, atomically: false, encoding: .utf8)
        #expect(rename(replacement, writer.eventsFile) == 0)
        try await until(15, "the reset and the new events") { m.reset != nil && m.events.count == 60 }
        #expect(m.events.allSatisfy { $0.topic == "rewritten" }, "nothing of the old file is left")
        #expect(m.events.first?.payload == "new 60" && m.events.last?.payload == "new 1", "nothing of the new file skipped")
        m.disconnect()
        await h.stop()
    }

    @Test("an unknown session is an error, not a stream")
    func unknownSessionIsError() async throws {
        let h = try await KitHarness.start()
        let m = monitor(h, "0123456789abcdef")
        await m.connect()
        guard case .error(let message) = m.connection else {
            Issue.record("expected an error state, got \(m.connection)")
            return
        }
        #expect(message.contains("no such session"))
        #expect(m.lastError != nil)
        #expect(!m.isStreaming)
        await h.stop()
    }

    @Test("the derived views: hat flow, tokens and sparkline, backpressure, stats with time left, tool calls, hats")
    func derivedViews() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun(maxIterations: 10)
        try writer.record(topic: "build.task", payload: "plan", iteration: 1, hat: "planner", triggered: "builder")
        try writer.emit(topic: "agent.usage", payload: try JSONParser.parse(#"{"usage":{"input_tokens":1200,"output_tokens":300},"total_cost_usd":0.05}"#))
        try KitHarness.appendRaw(#"{"topic":"tool.call","tool":"Bash","payload":"swift test","ts":"\#(Timestamp.now())"}"#, to: writer)
        try writer.record(topic: "build.blocked", payload: "tests: fail\nlint: pass\ntypecheck: pass", iteration: 2, hat: "builder", blockedCount: 1)
        try writer.emit(topic: "agent.usage", payload: try JSONParser.parse(#"{"usage":{"input_tokens":800,"output_tokens":100}}"#))
        try writer.record(topic: "build.done", payload: "tests: pass\nlint: pass\ntypecheck: pass", iteration: 3, hat: "builder", triggered: "reviewer")
        try writer.record(topic: "review.approved", payload: "lgtm", iteration: 4, hat: "reviewer")

        let m = monitor(h, id)
        await m.connect()
        try await until(10, "the detail and the events") { m.detail?.session.eventCount == 8 && m.eventCount == 8 }
        #expect(m.hatFlow.map(\.to) == ["planner", "builder", "reviewer"])
        #expect(m.tokenTotals?.inputTokens == 2000)
        #expect(m.tokenTotals?.outputTokens == 400)
        #expect(m.tokenTotals?.costUsd == 0.05)
        #expect(m.tokenSparkline == [1500, 900])
        #expect(m.backpressure?.tests == true)
        #expect(m.backpressure?.lint == true)
        #expect(m.iterationStats?.current == 4)
        #expect(m.iterationStats?.total == 10)
        #expect(m.estimatedSecondsRemaining != nil)
        #expect(m.recentToolCalls.count == 1)
        #expect(m.hatUsage.map(\.hat).sorted() == ["builder", "planner", "reviewer"])
        let reference = Dictionary(uniqueKeysWithValues: m.hatsReference.map { ($0.hat, $0.color) })
        #expect(reference["planner"] == "#00d9ff")
        #expect(reference["builder"] == "#c71585")
        #expect(reference["reviewer"] == "#39ff14")

        // Export: the detail and every event kept, oldest first.
        let exported = try JSONSerialization.jsonObject(with: m.exportJSON()) as? [String: Any]
        #expect(exported?["session_id"] as? String == id)
        let events = exported?["events"] as? [[String: Any]]
        #expect(events?.compactMap { ($0["id"] as? String).flatMap { Int($0) } } == Array(1...8), "ids as the server sends them (strings)")
        #expect(exported?["event_count"] as? Int == 8)
        #expect((exported?["detail"] as? [String: Any])?["hat_flow"] != nil)

        m.disconnect()
        writer.releaseLock()
        await h.stop()
    }

    @Test("during a live stream the detail comes with the stream (state frames), not by re-fetching it")
    func detailFollowsStateFrames() async throws {
        let h = try await KitHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = monitor(h, id)
        await m.connect()
        try await until(10, "connected") { m.connection == .connected }
        try await until(10, "the first state frame") { m.stateFrames >= 1 }
        for i in 1...4 { try writer.record(topic: "build.task", payload: "step \(i)", iteration: i, hat: "planner") }
        try await until(10, "the detail to show the new lines") { m.detail?.lineCount == 4 + 1 }
        #expect(m.stateFrames >= 2, "the detail changed by state frames")
        #expect(m.iterationStats?.current == 4)
        try writer.terminate(reason: "completed", status: "done", iterations: 4, exitCode: 0)
        try await until(10, "the run to end") { m.end != nil }
        #expect(m.detail?.session.mode == .complete)
        m.disconnect()
        await h.stop()
    }
}
