import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
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

/// ralph 2.8's user-scoped default config (`~/.ralph/config.yml`) under the workspace's `ralph.yml`.
@Suite("ralph 2.8 user-scoped default config")
struct UserDefaultsConfigTests {
    @Test("the user's defaults fill what ralph.yml leaves out (max iterations, RObot's timeout); ralph.yml wins where it says")
    func merged() async throws {
        let tmp = TemporaryDirectory()
        let userConfig = tmp.subdirectory("home") + "/.ralph/config.yml"
        Fixture.write("event_loop:\n  max_iterations: 42\n  completion_promise: LOOP_COMPLETE\nRObot:\n  timeout_seconds: 45\n", to: userConfig)
        let h = try await SteeringHarness.start { $0.userConfigFile = userConfig }
        defer { h.stop() }
        h.config("iterations: 3\npace: 0.1\nask: \"Which port?\"\nask_at: 2")
        let started = try await h.startRun()
        let question = Locked<PendingQuestion?>(nil)
        try await eventually(10, "the question") {
            let first = try await HTTP.get(h.server.base + "/api/robot/questions").json(RobotQuestionsResponse.self).questions.first
            question.withLock { $0 = first }
            return first != nil
        }
        let q = try #require(question.value)
        #expect(!q.timeoutEstimated, "RObot.timeout_seconds came from the user's config")
        #expect(Timestamp.parse(q.timeoutAt)!.timeIntervalSince(Timestamp.parse(q.askedAt)!) == 45)
        #expect(try await h.status(started.id).total == 42)

        // The workspace's own value wins over the user's; a change of the user's file is noticed.
        let workspaceConfig = h.root + "/proj/ralph.yml"
        Fixture.write((try String(contentsOfFile: workspaceConfig, encoding: .utf8)) + "event_loop:\n  max_iterations: 7\n", to: workspaceConfig)
        try await eventually(5, "ralph.yml's max_iterations") { try await h.status(started.id).total == 7 }
        #expect(try await h.post("/api/robot/response", #"{"question_id":"\#(q.id)","response_text":"8080"}"#).status == 200)
    }

    @Test("a workspace without ralph.yml runs on the user's defaults; an unreadable user config is left out")
    func noWorkspaceConfig() async throws {
        let tmp = TemporaryDirectory()
        let userConfig = tmp.subdirectory("home") + "/.ralph/config.yml"
        Fixture.write("event_loop:\n  max_iterations: 12\n", to: userConfig)
        let h = try await SteeringHarness.start { $0.userConfigFile = userConfig }
        defer { h.stop() }
        // A run the server did not start (a discovered one) in a workspace with no ralph.yml.
        let writer = try RalphRunWriter(workspace: h.root + "/bare")
        try writer.begin(prompt: "discovered")
        defer { writer.releaseLock() }
        let id = RunID.make(forPath: writer.eventsFile)
        try await eventually(5, "the run with the user's max iterations") { (try? await h.status(id))?.total == 12 }
        Fixture.write("- not\n- a mapping\n", to: userConfig)
        try await eventually(5, "the broken user config left out") {
            guard let session = try? await h.status(id) else { return false }
            return session.total == nil
        }
    }
}
