import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Every call the original iOS app makes (reference §8.1), in the order its screens make them, against the real server
/// with fake-ralph, through ``OriginalAppClient`` (its request code, status mapping and model shapes).
@Suite("Original iOS app: every call it makes", .serialized)
struct OriginalAppCallsTests {
    static let key = "admin-key-for-the-original-app"

    /// The app's calls: every route of the old server but `/api/health` (it probes `/health` instead).
    static let appCalls: Set<String> = [
        "GET /health", "GET /api/sessions", "POST /api/sessions", "DELETE /api/sessions/{id}", "GET /api/sessions/{id}/status",
        "GET /api/sessions/{id}/events", "POST /api/sessions/{id}/emit", "POST /api/sessions/{id}/pause", "POST /api/sessions/{id}/resume",
        "POST /api/sessions/{id}/steer", "GET /api/sessions/{id}/scratchpad", "GET /api/sessions/{id}/iterations", "GET /api/memories",
        "PUT /api/memories", "POST /api/memories/export", "GET /api/configs", "GET /api/configs/{path}", "POST /api/config/export",
        "POST /api/config/import", "GET /api/prompts", "GET /api/prompts/{path}", "GET /api/hats", "GET /api/presets", "GET /api/loops",
        "POST /api/loops", "GET /api/loops/{id}", "POST /api/loops/{id}/merge", "POST /api/loops/{id}/discard", "GET /api/merge-queue",
        "GET /api/tasks", "POST /api/tasks", "PUT /api/tasks/{id}", "GET /api/host/metrics", "GET /api/host/processes",
        "GET /api/robot/questions", "POST /api/robot/response", "POST /api/robot/guidance", "GET /api/skills", "GET /api/skills/{name}",
        "POST /api/skills/{name}/load",
    ]

    /// The workspace: the library fixture, a git repository on `main`, a preset whose run asks a question and goes on
    /// for long, and a short one for a loop.
    static func harness() async throws -> LibraryHarness {
        let l = try await LibraryHarness.start { $0.apiKey = Self.key }
        Fixture.write("ref: refs/heads/main\n", to: l.ws + "/.git/HEAD")
        Fixture.write(
            "# Asks which database\nfake_ralph:\n  iterations: 400\n  pace: 0.4\n  ask: \"Postgres or SQLite?\"\n  ask_at: 5\nRObot:\n  timeout_seconds: 120\n",
            to: l.ws + "/presets/asking.yml")
        Fixture.write("# A short loop\nfake_ralph:\n  iterations: 2\n  pace: 0.2\n", to: l.ws + "/presets/short.yml")
        return l
    }

    @Test("every call the app makes, in its order: each decodes with its models and does what its screen says")
    func everyCall() async throws {
        let l = try await Self.harness()
        defer { l.h.stop() }
        let app = OriginalAppClient(base: l.h.server.base, key: Self.key)

        // Launch: the health probe, the sessions list; a wrong key is "unauthorized" in the app.
        #expect(try await app.health() == 200)
        _ = try await app.call(.GET, "/api/sessions", "/api/sessions", as: [ClientModels.Session].self)
        await #expect(throws: OriginalAppClient.Failure.unauthorized) {
            try await OriginalAppClient(base: l.h.server.base, key: "wrong").call(.GET, "/api/sessions", "/api/sessions", as: [ClientModels.Session].self)
        }

        // The New Ralph wizard: its pickers and previews, then createSession by the config's name.
        let configs = try await app.call(.GET, "/api/configs", "/api/configs", as: ClientModels.Configs.self).configs
        let asking = try #require(configs.first { $0.name == "asking" }, "\(configs.map(\.name))")
        #expect(asking.description == "Asks which database")
        let config = try await app.call(.GET, "/api/configs/{path}", "/api/configs/\(asking.path)", as: ClientModels.FileContent.self)
        #expect(config.content.contains("Postgres or SQLite?") && config.content_type == "yaml")
        let prompts = try await app.call(.GET, "/api/prompts", "/api/prompts", as: ClientModels.Prompts.self).prompts
        let prompt = try #require(prompts.first { $0.name == "docs" })
        #expect(try await app.call(.GET, "/api/prompts/{path}", "/api/prompts/\(prompt.path)", as: ClientModels.FileContent.self).content.hasPrefix("# Write the docs"))
        #expect(try await app.call(.GET, "/api/presets", "/api/presets", as: ClientModels.Presets.self).presets.contains { $0.name == "feature" })
        #expect(try await app.call(.GET, "/api/hats", "/api/hats", as: ClientModels.Hats.self).hats.contains { $0.name == "Reviewer" && $0.emoji == "👀" })
        await #expect(throws: OriginalAppClient.Failure.self) { _ = try await app.createSession(config: "nope", prompt: prompt.path, directory: "") }
        let session = try await app.createSession(config: asking.name, prompt: prompt.path, directory: "")
        let id = session.id

        // The session screen: it streams once the run is live (mode or status), and sees the run's events.
        try await eventually(10, "the run to be live for the app") {
            try await app.call(.GET, "/api/sessions/{id}/status", "/api/sessions/\(id)/status", as: ClientModels.Session.self).mode == "live"
        }
        let screen = app.sessionScreen(id)
        #expect(try await screen.openScreen(), "the app streams a live run")
        try await screen.stream(for: 1.5)
        let streamed = screen.seen.withLock { $0 }
        #expect(streamed.events.first?.topic == "task.start" && streamed.reconnects == 0 && streamed.terminal == nil, "\(streamed.events.map(\.topic))")
        let iterations = try await app.call(.GET, "/api/sessions/{id}/iterations", "/api/sessions/\(id)/iterations", as: ClientModels.Iterations.self)
        #expect(iterations.total == iterations.iterations.count && iterations.iterations.allSatisfy { $0.number >= 1 })
        _ = try await app.call(.GET, "/api/sessions/{id}/scratchpad", "/api/sessions/\(id)/scratchpad", as: ClientModels.Scratchpad.self)

        // Its controls: a signal, a steer, pause and resume — each carried out.
        let emitted = try await app.call(.POST, "/api/sessions/{id}/emit", "/api/sessions/\(id)/emit", body: ["topic": "review.request", "payload": "from the phone"], as: ClientModels.Emitted.self)
        #expect(emitted.success && emitted.topic == "review.request")
        await #expect(throws: OriginalAppClient.Failure.self) {
            _ = try await app.call(.POST, "/api/sessions/{id}/emit", "/api/sessions/\(id)/emit", body: ["topic": "no spaces"], as: ClientModels.Emitted.self)
        }
        let steered = try await app.call(.POST, "/api/sessions/{id}/steer", "/api/sessions/\(id)/steer", body: ["message": "Prefer small commits"], as: ClientModels.Tolerant.self)
        #expect(["acknowledged", "accepted", "sent", "delivered"].contains(steered.status ?? ""), "\(String(describing: steered.status))")
        #expect(try await app.call(.POST, "/api/sessions/{id}/pause", "/api/sessions/\(id)/pause", as: ClientModels.Tolerant.self).status == "paused")
        #expect(try await app.call(.GET, "/api/sessions/{id}/status", "/api/sessions/\(id)/status", as: ClientModels.Session.self).status == "paused")
        #expect(try await app.call(.POST, "/api/sessions/{id}/resume", "/api/sessions/\(id)/resume", as: ClientModels.Tolerant.self).status == "resumed")

        // The Robot tab: the run's question, answered; guidance for the run.
        let question = try await Self.question(app, session: id)
        #expect(question.question_text == "Postgres or SQLite?" && question.iteration == 5)
        let answered = try await app.call(.POST, "/api/robot/response", "/api/robot/response", body: ["question_id": question.id, "response_text": "SQLite"], as: ClientModels.ResponseAck.self)
        #expect(answered.success && answered.question_id == question.id)
        let guided = try await app.call(.POST, "/api/robot/guidance", "/api/robot/guidance", body: ["session_id": id, "guidance_text": "Keep the API stable"], as: ClientModels.GuidanceAck.self)
        #expect(guided.success && guided.session_id == id)
        try await eventually(15, "ralph to read the answer") { try Self.recorded(l, "answer: SQLite") }

        // Loops: one spawned beside the busy primary run (a worktree), merged once it is done; a queued one discarded.
        let loop = try await app.call(.POST, "/api/loops", "/api/loops", body: ["prompt": "side quest", "config_path": "presets/short.yml", "base_branch": "main"], as: ClientModels.SpawnedLoop.self)
        #expect(loop.worktree_path == l.ws + "/.worktrees/\(loop.id)")
        #expect(try await app.call(.GET, "/api/loops/{id}", "/api/loops/\(loop.id)", as: ClientModels.Loop.self).prompt == "side quest")
        #expect(try await app.call(.GET, "/api/loops", "/api/loops", as: ClientModels.Loops.self).loops.contains { $0.id == loop.id })
        try await eventually(15, "the loop to finish and wait in the merge queue") {
            try await app.call(.GET, "/api/merge-queue", "/api/merge-queue", as: ClientModels.Queue.self).pending.contains { $0.id == loop.id }
        }
        #expect(try await app.call(.POST, "/api/loops/{id}/merge", "/api/loops/\(loop.id)/merge", as: ClientModels.Operation.self).success)
        try FileManager.default.createDirectory(atPath: l.ws + "/.worktrees/quiet-river", withIntermediateDirectories: true)
        #expect(try await app.call(.POST, "/api/loops/{id}/discard", "/api/loops/quiet-river/discard", as: ClientModels.Operation.self).success)
        let queue = try await app.call(.GET, "/api/merge-queue", "/api/merge-queue", as: ClientModels.Queue.self)
        #expect(queue.completed.contains { $0.id == loop.id } && !queue.pending.contains { $0.id == "quiet-river" }, "\(queue.completed.map(\.id))")

        // Tasks: the list, filtered, a new one, closed.
        let open = try await app.call(.GET, "/api/tasks", "/api/tasks?status=open", as: ClientModels.Tasks.self).tasks
        #expect(!open.isEmpty && open.allSatisfy { $0.status == "open" })
        let created = try await app.call(.POST, "/api/tasks", "/api/tasks", body: ["title": "From the phone", "description": "d", "priority": 2, "blocked_by": [String]()], as: ClientModels.Task.self)
        #expect(created.title == "From the phone" && created.priority == 2)
        #expect(try await app.call(.PUT, "/api/tasks/{id}", "/api/tasks/\(created.id)", body: ["status": "closed"], as: ClientModels.Task.self).status == "closed")
        #expect(try await app.call(.GET, "/api/tasks", "/api/tasks", as: ClientModels.Tasks.self).tasks.contains { $0.id == created.id && $0.status == "closed" })

        // Memories: read, written, exported.
        #expect(try await app.call(.GET, "/api/memories", "/api/memories", as: ClientModels.Memories.self).content.contains("Use Result types"))
        _ = try await app.call(.PUT, "/api/memories", "/api/memories", body: ["content": "# Memories\n\nWritten from the phone.\n"], as: ClientModels.Memories.self)
        let exported = try await app.call(.POST, "/api/memories/export", "/api/memories/export", as: ClientModels.MemoriesExport.self)
        #expect(exported.content.contains("Written from the phone."))

        // Skills: the list, one, loaded.
        let skills = try await app.call(.GET, "/api/skills", "/api/skills", as: ClientModels.Skills.self)
        #expect(skills.count == skills.skills.count && skills.skills.contains { $0.name == "deploy" })
        #expect(try await app.call(.GET, "/api/skills/{name}", "/api/skills/deploy", as: ClientModels.Skill.self).description == "How to deploy")
        #expect(try await app.call(.POST, "/api/skills/{name}/load", "/api/skills/deploy/load", as: ClientModels.SkillContent.self).content.contains("Run make deploy."))

        // The host screen.
        #expect(try await app.call(.GET, "/api/host/metrics", "/api/host/metrics", as: ClientModels.Metrics.self).cpu.cores >= 1)
        #expect(try await !app.call(.GET, "/api/host/processes", "/api/host/processes", as: ClientModels.Processes.self).processes.isEmpty)

        // Settings: the configuration exported and imported back.
        let ralph = try await app.call(.POST, "/api/config/export", "/api/config/export", as: ClientModels.ExportedConfig.self)
        #expect(ralph.filename == "ralph.yml" && ralph.content.contains("max_iterations: 25"))
        let imported = try await app.call(.POST, "/api/config/import", "/api/config/import", body: ["content": ralph.content + "# imported from the phone\n"], as: ClientModels.ImportedConfig.self)
        #expect(imported.path == "ralph.yml")
        #expect(try String(contentsOfFile: l.ws + "/ralph.yml", encoding: .utf8).hasSuffix("# imported from the phone\n"))

        // Stop (graceful: ralph stops at its iteration boundary): the run ends; an unknown session is "not found" in the app.
        let stopped = try await app.call(.DELETE, "/api/sessions/{id}", "/api/sessions/\(id)", as: ClientModels.Tolerant.self)
        #expect(stopped.status == "stopping", "\(String(describing: stopped.status))")
        try await eventually(10, "the run to end") {
            try await app.call(.GET, "/api/sessions/{id}/status", "/api/sessions/\(id)/status", as: ClientModels.Session.self).mode == "complete"
        }
        await #expect(throws: OriginalAppClient.Failure.sessionNotFound) {
            try await app.call(.GET, "/api/sessions/{id}/status", "/api/sessions/0123456789abcdef/status", as: ClientModels.Session.self)
        }

        let made = Set(app.calls.withLock { $0 })
        #expect(made == Self.appCalls, "missing: \(Self.appCalls.subtracting(made).sorted()); extra: \(made.subtracting(Self.appCalls).sorted())")
        #expect(Self.appCalls.count == 40, "39 API routes and /health")
    }

    /// The Robot tab's poll (every 3 s in the app) until the session's question is there.
    static func question(_ app: OriginalAppClient, session: String) async throws -> ClientModels.Question {
        let found = Locked<ClientModels.Question?>(nil)
        try await eventually(20, "the run's question") {
            let questions = try await app.call(.GET, "/api/robot/questions", "/api/robot/questions", as: ClientModels.Questions.self).questions
            found.withLock { $0 = questions.first { $0.session_id == session } }
            return found.value != nil
        }
        return try #require(found.value)
    }

    /// Whether the primary run's events file holds `text`.
    static func recorded(_ l: LibraryHarness, _ text: String) throws -> Bool {
        let pointer = try String(contentsOfFile: l.ws + "/.ralph/current-events", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return try String(contentsOfFile: l.ws + "/" + pointer, encoding: .utf8).contains(text)
    }
}
