import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing
import TestSupport

@Suite("Session detail screen against the real server")
@MainActor
struct SessionsDetailScreenTests {
    func model(_ h: SessionsHarness, _ id: String, role: Role = .admin) -> SessionDetailScreenModel {
        let model = SessionDetailScreenModel(client: h.client(role), sessionID: id, capabilities: Capabilities(role: role))
        model.monitor.policy = SessionsHarness.fastPolicy
        model.iterationsRefreshInterval = .milliseconds(200)
        return model
    }

    @Test("a live run fills the ten sections from the server: header, tokens, flow, backpressure, stats, control, events, stream, hats")
    func sectionsFromTheServer() async throws {
        let h = try await SessionsHarness.start()
        try h.write(
            "proj/ralph.yml",
            "event_loop:\n  max_iterations: 10\nhats:\n  planner:\n    triggers: [task.start]\n    publishes: [build.task]\n  builder:\n    triggers: [build.task]\n    publishes: [build.done]\n")
        let (writer, id) = try await h.writeRun("proj", prompt: "Ship the export flag")
        try writer.record(topic: "build.task", payload: "plan", iteration: 1, hat: "planner", triggered: "builder")
        try writer.emit(topic: "agent.usage", payload: try JSONParser.parse(#"{"usage":{"input_tokens":1200,"output_tokens":300},"total_cost_usd":0.05}"#))
        try writer.record(topic: "build.blocked", payload: "tests: fail\nlint: pass\ntypecheck: pass", iteration: 2, hat: "builder", blockedCount: 1)
        try writer.emit(topic: "agent.usage", payload: try JSONParser.parse(#"{"usage":{"input_tokens":800,"output_tokens":100}}"#))
        try writer.record(topic: "build.done", payload: "tests: pass\nlint: pass\ntypecheck: pass", iteration: 3, hat: "builder", triggered: "reviewer")

        let m = model(h, id)
        await m.start()
        try await SessionsHarness.until(10, "the detail and all events") { m.monitor.detail?.session.eventCount == 6 && m.monitor.eventCount == 6 }

        let header = try #require(m.header())
        #expect(header.title == "Ship the export flag")
        #expect(header.mode.text == "live")
        #expect(header.rows.first { $0.label == "Iteration" }?.value == "3 / 10")
        #expect(header.rows.first { $0.label == "Hat" }?.hat == "reviewer")
        #expect(m.title == "Ship the export flag")

        #expect(m.tokens.stats.first?.value == "2k")
        #expect(m.tokens.sparkline.values == [1500, 900])
        #expect(m.tokens.sparkline.points.map(\.y) == [1, 0])
        #expect(m.hatFlow().changes.map(\.to) == ["reviewer", "builder", "planner"])
        #expect(m.backpressure().checks.prefix(3).map(\.result) == [.pass, .pass, .pass])
        #expect(m.iterationStats.stats[1].value == "3 / 10")
        #expect(m.modeControl.showsPause && m.modeControl.showsStop)
        #expect(m.recentEvents().rows.first?.topic == "build.done")
        let stream = m.eventStream()
        #expect(stream.rows.map(\.topic) == ["build.done", "agent.usage", "build.blocked", "agent.usage", "build.task", "task.start"])
        #expect(stream.countText.hasPrefix("6 events received"))
        try await SessionsHarness.until(10, "the stream to be live") { m.eventStream().connection.kind == .live }
        #expect(m.hatsReference.rows.map(\.id) == ["builder", "planner"])
        #expect(m.hatsReference.rows.first { $0.id == "builder" }?.usageText != nil)
        #expect(m.iterations != nil)

        // A new event arrives on the stream, newest first, and the iterations are re-read.
        let iterationsBefore = m.iterations?.map(\.number) ?? []
        #expect(!iterationsBefore.contains(4))
        try writer.record(topic: "review.approved", payload: "lgtm", iteration: 4, hat: "reviewer")
        try await SessionsHarness.until(10, "the new event") { m.eventStream().rows.first?.topic == "review.approved" }
        try await SessionsHarness.until(10, "iterations re-read") { m.iterations?.contains { $0.number == 4 } == true }
        m.suspend()
        writer.releaseLock()
        await h.stop()
    }

    @Test("elapsed counts on between refreshes while live, and stands still once the run is over")
    func elapsedTicks() async throws {
        let h = try await SessionsHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = model(h, id)
        await m.start()
        let t0 = Date()
        let base = m.elapsedSeconds(now: t0)
        #expect(m.elapsedSeconds(now: t0.addingTimeInterval(5)) == base + 5)
        try writer.terminate(reason: "completed", status: "done", iterations: 0, exitCode: 0)
        try await SessionsHarness.until(10, "the end") { m.monitor.end != nil }
        await m.refresh()
        let after = m.elapsedSeconds(now: Date())
        #expect(m.elapsedSeconds(now: Date().addingTimeInterval(60)) == after)
        #expect(m.header()?.endedText?.hasPrefix("Ended: completed") == true)
        #expect(!m.modeControl.showsPause && !m.actions.showsSteer && m.actions.showsExport)
        #expect(m.eventStream().endedText == "Run ended: completed")
        await h.stop()
    }

    @Test("suspend closes the stream; events written meanwhile arrive once on resume, then the stream is live again")
    func suspendResume() async throws {
        let h = try await SessionsHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = model(h, id)
        await m.start()
        try await SessionsHarness.until(10, "live") { m.eventStream().connection.kind == .live }
        m.suspend()
        #expect(!m.monitor.isStreaming)
        #expect(m.eventStream().connection.kind == .offline)
        for n in 1...3 { try writer.record(topic: "away.\(n)", payload: "p", iteration: n, hat: "builder") }
        try await Task.sleep(for: .milliseconds(300))
        #expect(m.eventStream().rows.count == 1, "nothing arrives while suspended")
        await m.resume()
        try await SessionsHarness.until(10, "the events written meanwhile") { m.monitor.eventCount == 4 }
        #expect(m.eventStream().rows.map(\.topic) == ["away.3", "away.2", "away.1", "task.start"])
        try await SessionsHarness.until(10, "live again") { m.eventStream().connection.kind == .live }
        m.suspend()
        writer.releaseLock()
        await h.stop()
    }

    @Test("an unknown session: the load error, no header, no stream")
    func unknownSession() async throws {
        let h = try await SessionsHarness.start()
        let m = model(h, "0123456789abcdef")
        await m.start()
        #expect(m.loadError?.contains("no such session") == true)
        #expect(m.header() == nil)
        #expect(!m.monitor.isStreaming)
        await h.stop()
    }

    @Test("a run in a subdirectory shows the hats of its own config")
    func hatsOfItsWorkspace() async throws {
        let h = try await SessionsHarness.start()
        try h.write("root-hats/ralph.yml", "hats:\n  rootonly:\n    triggers: [x]\n")
        try h.write("sub/ralph.yml", "hats:\n  scout:\n    triggers: [task.start]\n    publishes: [scout.done]\n")
        let (writer, id) = try await h.writeRun("sub")
        let m = model(h, id, role: .viewer)
        await m.start()
        #expect(m.hatsReference.rows.map(\.id) == ["scout"])
        m.suspend()
        writer.releaseLock()
        await h.stop()
    }

    @Test("export: a JSON file (detail, events oldest first, iterations, hats, stream) and a Markdown summary, named by id8 and time")
    func export() async throws {
        let h = try await SessionsHarness.start()
        try h.write("proj/ralph.yml", "event_loop:\n  max_iterations: 5\nhats:\n  builder:\n    triggers: [build.task]\n")
        let (writer, id) = try await h.writeRun("proj", prompt: "# Export me")
        try writer.record(topic: "build.task", payload: "plan", iteration: 1, hat: "planner", triggered: "builder")
        try writer.record(topic: "build.done", payload: "tests: pass", iteration: 2, hat: "builder", triggered: "reviewer")
        let m = model(h, id, role: .viewer)
        await m.start()
        try await SessionsHarness.until(10, "all events") { m.monitor.eventCount == 3 && m.monitor.detail?.session.eventCount == 3 }
        let at = Timestamp.parse("2026-02-05T08:09:13Z")!
        let export = try m.export(now: at)
        #expect(export.json.fileName == "ralph-session-\(id.prefix(8))-20260205T080913Z.json")
        #expect(export.summary.fileName == "ralph-session-\(id.prefix(8))-20260205T080913Z.md")
        #expect(export.json.mimeType == "application/json" && export.summary.mimeType == "text/markdown")

        let object = try #require(try JSONSerialization.jsonObject(with: export.json.contents) as? [String: Any])
        #expect(object["session_id"] as? String == id)
        #expect((object["events"] as? [[String: Any]])?.compactMap { $0["topic"] as? String } == ["task.start", "build.task", "build.done"])
        #expect(object["event_count"] as? Int == 3)
        #expect((object["detail"] as? [String: Any])?["hat_flow"] != nil)
        #expect(object["iterations"] is [Any])
        #expect((object["hats"] as? [[String: Any]])?.first?["id"] as? String == "builder")
        #expect((object["stream"] as? [String: Any])?["state"] as? String != nil)
        #expect(export.json.text.contains("\n  \"session_id\""), "indented for reading")

        let md = export.summary.text
        #expect(md.hasPrefix("# \\# Export me\n"), "a leading # in the task does not become a heading")
        #expect(md.contains("- Session: `\(id)`"))
        #expect(md.contains("- Iteration: 2 / 5"))
        #expect(md.contains("## Hat flow") && md.contains("planner → builder"))
        #expect(md.contains("## Backpressure") && md.contains("- tests: ✓ pass"))
        #expect(md.contains("## Events (newest first)") && md.contains("`build.done` [builder]: tests: pass"))
        #expect(md.hasSuffix("Exported from Ralph Mobile at 2026-02-05T08:09:13.000Z.\n"))

        // Prepared for the share sheet: both files written where asked.
        let folder = URL(fileURLWithPath: h.tmp.path + "/share")
        m.prepareExport(now: at, directory: folder)
        #expect(m.exportedFiles.map(\.lastPathComponent) == [export.json.fileName, export.summary.fileName])
        #expect(try Data(contentsOf: m.exportedFiles[1]) == export.summary.contents)
        m.clearExport()
        #expect(m.exportedFiles.isEmpty)
        m.suspend()
        writer.releaseLock()
        await h.stop()
    }
}
