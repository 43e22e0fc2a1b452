import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The header values the original iOS app shows (its `Session`: `total`, `hat`, `trigger_event`, `publishes`), from
/// the configuration the run was started with — against the real server with fake-ralph.
@Suite("Original iOS app: its session header", .serialized)
struct OriginalAppSessionFieldsTests {
    static let preset = """
        event_loop:
          max_iterations: 8
        hats:
          builder:
            name: Builder
            triggers: [build.task]
            publishes: [build.done, build.blocked]
          reviewer:
            name: Reviewer
            triggers: [builder.done]
            publishes: [review.done]
        fake_ralph:
          iterations: 40
          pace: 0.3

        """

    @Test("a run started with a preset: total is the preset's max_iterations, publishes its hat's topics, trigger_event the topic that put the hat to work")
    func fromTheRunsOwnConfig() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        // The workspace's own config says 10 and has other hats: the run's preset wins.
        Fixture.write("event_loop:\n  max_iterations: 10\nhats:\n  planner:\n    publishes: [plan.done]\n", to: h.root + "/proj/ralph.yml")
        Fixture.write(Self.preset, to: h.root + "/proj/presets/feature.yml")
        let started = try await h.post("/api/sessions", #"{"config_path":"feature","prompt":"Do it","working_dir":"proj"}"#)
        #expect(started.status == 201, "\(started.text)")
        let id = try started.json(StartSessionResponse.self).id

        // Read as the app reads it: the JSON keys of its Session model.
        let body = Locked("")
        try await eventually(15, "the second hat at work") {
            let status = try await HTTP.get(h.server.base + "/api/sessions/\(id)/status")
            body.withLock { $0 = status.text }
            let session = try status.json(Session.self)
            return session.hat == "reviewer" && session.triggerEvent != nil
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.value.utf8)) as? [String: Any])
        #expect(object["total"] as? Int == 8, "\(object)")
        #expect(object["publishes"] as? [String] == ["review.done"], "\(object)")
        #expect(object["trigger_event"] as? String == "builder.done", "\(object)")
        let listed = try await HTTP.get(h.server.base + "/api/sessions").json([Session].self).first { $0.id == id }
        #expect(listed?.total == 8 && listed?.publishes == ["review.done"])
        _ = try await HTTP.request(h.server.base + "/api/sessions/\(id)?force=true", method: .DELETE)
    }

    @Test("a run started with the workspace's ralph.yml, or found on disk, takes total and publishes from the workspace's config")
    func fromTheWorkspace() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        Fixture.write(Self.preset.replacingOccurrences(of: "max_iterations: 8", with: "max_iterations: 12"), to: h.root + "/proj/ralph.yml")
        let (process, id) = try await h.foreignRun()
        defer { process.terminate() }
        try await eventually(15, "a hat at work") { try await h.status(id).publishes != nil }
        let session = try await h.status(id)
        #expect(session.total == 12 && session.hat.map { ["builder", "reviewer"].contains($0) } == true, "\(session)")
        #expect(session.publishes == (session.hat == "builder" ? ["build.done", "build.blocked"] : ["review.done"]))
    }
}
