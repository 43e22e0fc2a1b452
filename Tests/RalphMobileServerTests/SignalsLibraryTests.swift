import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

/// ralph 2.9.3–2.10 library changes through the real server: tasks with `key` and `started` (written by fake-ralph),
/// TOML presets.
@Suite("ralph 2.10 tasks and presets")
struct SignalsLibraryTests {
    @Test("a task fake-ralph adds with a stable key shows its key and started time")
    func keyedTask() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 2\npace: 0.1\ntask_key: retry-handler\ntask_title: Add retry")
        let started = try await h.startRun()
        _ = try await h.stream(started.id).messagesUntilClosed(timeout: 15)
        let tasks = try await HTTP.get(h.server.base + "/api/tasks?workspace=proj").json(TasksResponse.self).tasks
        let task = try #require(tasks.first { $0.key == "retry-handler" }, "\(tasks)")
        #expect(task.title == "Add retry" && task.status == "in_progress" && task.startedAt != nil && task.startedAt == task.createdAt)
        // The wire names are ralph's.
        let raw = try await HTTP.get(h.server.base + "/api/tasks?workspace=proj").text
        #expect(raw.contains(#""key":"retry-handler""#) && raw.contains(#""started_at":"#))
    }

    @Test("a TOML preset is listed next to the YAML ones, described by its leading comment, and served as text")
    func tomlPreset() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 1")
        let toml = "# Review in waves\n[event_loop]\nmax_iterations = 10\n\n[hats.reviewer]\nname = \"Reviewer\"\ntriggers = [\"review.file\"]\n"
        Fixture.write(toml, to: h.root + "/proj/presets/review.toml")
        Fixture.write("# Feature work\nhats: {}\n", to: h.root + "/proj/presets/feature.yml")
        let presets = try await HTTP.get(h.server.base + "/api/presets?workspace=proj").json(PresetsResponse.self).presets
        #expect(presets.map(\.path) == ["presets/feature.yml", "presets/review.toml"])
        #expect(presets.last?.name == "review" && presets.last?.description == "Review in waves")
        let served = try await HTTP.get(h.server.base + "/api/configs/presets/review.toml?workspace=proj")
        #expect(served.status == 200, "\(served.text)")
        #expect(try served.json(FileContentResponse.self).content == toml)
        let other = try await HTTP.get(h.server.base + "/api/configs/presets/review.txt?workspace=proj")
        #expect(other.status == 400, "\(other.text)")
    }
}
