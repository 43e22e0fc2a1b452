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

    @Test("a TOML preset directory is listed next to the YAML ones, described as ralph does, and its TOML files served as text")
    func tomlPreset() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 1")
        let dir = h.root + "/proj/presets/autoreview"
        let autoloops = "# Review every changed file in waves\n[loop]\nmax_iterations = 10\n"
        Fixture.write(autoloops, to: dir + "/autoloops.toml")
        Fixture.write("[roles.reviewer]\nprompt = \"roles/reviewer.md\"\n", to: dir + "/topology.toml")
        // Not a preset: only one of the two files.
        Fixture.write("[loop]\n", to: h.root + "/proj/presets/half/autoloops.toml")
        Fixture.write("# Feature work\nhats: {}\n", to: h.root + "/proj/presets/feature.yml")
        let presets = try await HTTP.get(h.server.base + "/api/presets?workspace=proj").json(PresetsResponse.self).presets
        #expect(presets.map(\.path) == ["presets/autoreview/autoloops.toml", "presets/feature.yml"], "\(presets)")
        #expect(presets.first?.name == "autoreview" && presets.first?.description == "Review every changed file in waves")
        let served = try await HTTP.get(h.server.base + "/api/configs/presets/autoreview/autoloops.toml?workspace=proj")
        #expect(served.status == 200, "\(served.text)")
        #expect(try served.json(FileContentResponse.self).content == autoloops)
        #expect(try await HTTP.get(h.server.base + "/api/configs/presets/autoreview/topology.toml?workspace=proj").status == 200)
        let other = try await HTTP.get(h.server.base + "/api/configs/presets/autoreview/harness.md?workspace=proj")
        #expect(other.status == 400, "\(other.text)")
        // A README's first prose line describes it, as ralph's own listing does.
        Fixture.write("# autoreview\n\nReviews files in parallel.\n", to: dir + "/README.md")
        let described = try await HTTP.get(h.server.base + "/api/presets?workspace=proj").json(PresetsResponse.self).presets
        #expect(described.first?.description == "Reviews files in parallel.")
        // It is started with -H, not -c: not among the configs.
        let configs = try await HTTP.get(h.server.base + "/api/configs?workspace=proj").text
        #expect(!configs.contains("autoloops.toml"))
    }
}
