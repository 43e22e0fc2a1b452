import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The original iOS app's signal buttons (`POST …/emit {topic, payload: String}`, reference §8.1) do what they say,
/// and each is still recorded as the event it was — against the real server with fake-ralph.
@Suite("Original iOS app: its signal buttons", .serialized)
struct OriginalAppSignalsTests {
    static let admin = "admin-key-for-signal-tests"

    static func emit(_ h: SteeringHarness, _ id: String, _ topic: String, _ payload: String?, key: String = admin) async throws -> HTTPResult {
        var object: [String: Any] = ["topic": topic]
        if let payload { object["payload"] = payload }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return try await h.post("/api/sessions/\(id)/emit", body, key: key)
    }

    static func status(_ h: SteeringHarness, _ id: String) async throws -> Session {
        try await HTTP.get(h.server.base + "/api/sessions/\(id)/status", headers: [("X-Api-Key", admin)]).json(Session.self)
    }

    /// The topics and payloads of the run's events file.
    static func lines(_ h: SteeringHarness, _ project: String = "proj") throws -> [(topic: String, payload: String)] {
        let pointer = try String(contentsOfFile: h.root + "/\(project)/.ralph/current-events", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let text = try String(contentsOfFile: h.root + "/\(project)/" + pointer, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let topic = object["topic"] as? String else { return nil }
            return (topic, object["payload"] as? String ?? "")
        }
    }

    @Test("user.pause pauses the run (ours: SIGSTOP), user.guidance and user.priority become guidance ralph reads; each is recorded")
    func pauseAndGuidance() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = Self.admin }
        defer { h.stop() }
        h.config("iterations: 8\npace: 0.4\nrpc_tool_seconds: 0.05")
        let run = try await h.post("/api/sessions", #"{"config_path":"ralph","prompt":"Do it","working_dir":"proj"}"#, key: Self.admin).json(StartSessionResponse.self)
        try await eventually(10, "the run to be live") { try await Self.status(h, run.id).mode == .live }

        let guided = try await Self.emit(h, run.id, "user.guidance", "Focus on the tests")
        #expect(guided.status == 200, "\(guided.text)")
        #expect(try guided.json(EmitResponse.self).done?.contains("guidance") == true)
        let prioritised = try await Self.emit(h, run.id, "user.priority", "Fix the login bug first")
        #expect(prioritised.status == 200, "\(prioritised.text)")
        // fake-ralph echoes the guidance it read into its next record (`guidance: …`).
        try await eventually(10, "ralph to read both") {
            let records = try Self.lines(h).filter { $0.topic.hasSuffix(".done") }.map(\.payload).joined(separator: "\n")
            return records.contains("Focus on the tests") && records.contains("Priority: Fix the login bug first")
        }
        let topics = try Self.lines(h).map(\.topic)
        #expect(topics.contains("user.guidance") && topics.contains("user.priority"), "recorded as the events they were")
        #expect(topics.filter { $0 == "human.guidance" }.count == 2, "and as guidance ralph reads")

        let paused = try await Self.emit(h, run.id, "user.pause", nil)
        #expect(paused.status == 200, "\(paused.text)")
        #expect(try paused.json(EmitResponse.self).done == "paused")
        let status = try await Self.status(h, run.id)
        #expect(status.mode == .paused && status.pausedBy == "server")
        let count = try Self.lines(h).count
        try await Task.sleep(for: .seconds(1))
        #expect(try Self.lines(h).count == count, "a paused run writes nothing")
        #expect(try Self.lines(h).last?.topic == "user.pause")
        #expect(try await h.post("/api/sessions/\(run.id)/resume", "", key: Self.admin).status == 200)
        _ = try await HTTP.request(h.server.base + "/api/sessions/\(run.id)?force=true", method: .DELETE, headers: [("X-Api-Key", Self.admin)])
    }

    @Test("user.abort stops the run gracefully (ralph's own stop at the iteration boundary); an operator's is 403 and writes nothing")
    func abort() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = Self.admin }
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.2")
        let run = try await h.post("/api/sessions", #"{"config_path":"ralph.yml","prompt":"Do it","working_dir":"proj"}"#, key: Self.admin).json(StartSessionResponse.self)
        try await eventually(10, "the run to be live") { try await Self.status(h, run.id).mode == .live }
        let op = try await h.post("/api/keys", #"{"role":"operator"}"#, key: Self.admin).json(CreatedAPIKey.self).secret

        let refused = try await Self.emit(h, run.id, "user.abort", "", key: op)
        #expect(refused.status == 403 && refused.text.contains("admin"), "\(refused.text)")
        let recorded = try Self.lines(h).contains { $0.topic == "user.abort" }
        #expect(!recorded, "nothing recorded")
        #expect(try await Self.status(h, run.id).mode == .live)

        let stopped = try await Self.emit(h, run.id, "user.abort", "")
        #expect(stopped.status == 200, "\(stopped.text)")
        #expect(try stopped.json(EmitResponse.self).done == "stopping at the end of this iteration")
        try await eventually(10, "the run to end") { try await Self.status(h, run.id).mode == .complete }
        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(run.id)", headers: [("X-Api-Key", Self.admin)]).json(SessionDetail.self)
        #expect(detail.stopReason?.reason == "stopped" && detail.session.stopRequested?.kind == "graceful", "\(String(describing: detail.stopReason))")
        #expect(try Self.lines(h).map(\.topic).contains("user.abort"))
    }

    @Test("a signal that cannot be carried out is its error, not a 200: pausing a finished run, guidance without text")
    func failures() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = Self.admin }
        defer { h.stop() }
        h.config("iterations: 1\npace: 0.05")
        let run = try await h.post("/api/sessions", #"{"config_path":"ralph.yml","prompt":"Do it","working_dir":"proj"}"#, key: Self.admin).json(StartSessionResponse.self)
        try await eventually(10, "the run to end") { try await Self.status(h, run.id).mode == .complete }
        let before = try Self.lines(h).count
        let pause = try await Self.emit(h, run.id, "user.pause", nil)
        #expect(pause.status == 409 && pause.text.contains("not running"), "\(pause.text)")
        let empty = try await Self.emit(h, run.id, "user.guidance", "  ")
        #expect(empty.status == 400 && empty.text.contains("needs the guidance text"), "\(empty.text)")
        #expect(try Self.lines(h).count == before, "nothing recorded")
    }
}
