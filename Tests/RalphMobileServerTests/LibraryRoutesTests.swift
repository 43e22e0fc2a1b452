import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

#if canImport(Glibc)
import Glibc
#endif

/// A server on a fixture workspace, running the fake-ralph double for ralph commands.
struct LibraryHarness {
    let h: SteeringHarness
    var base: String { h.server.base + "/api" }
    var ws: String { h.root }

    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> LibraryHarness {
        let h = try await SteeringHarness.start(configure)
        LibraryFixture.make(h.root)
        return LibraryHarness(h: h)
    }

    func get(_ path: String) async throws -> HTTPResult { try await HTTP.get(base + path) }
    func send(_ path: String, _ method: HTTPMethodName, _ body: String = "", key: String? = nil) async throws -> HTTPResult {
        try await HTTP.request(base + path, method: method.nio, headers: key.map { [("X-Api-Key", $0)] } ?? [], body: body)
    }
}

enum HTTPMethodName {
    case post, put, delete
    var nio: NIOHTTP1Method {
        switch self {
        case .post: .POST
        case .put: .PUT
        case .delete: .DELETE
        }
    }
}

import NIOHTTP1
typealias NIOHTTP1Method = NIOHTTP1.HTTPMethod

@Suite("Library routes on ralph's real formats")
struct LibraryRoutesTests {
    @Test("configs, presets, hats and prompts, in the original shapes")
    func listings() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let configs = try await l.get("/configs").json(ClientModels.Configs.self).configs
        #expect(configs.map(\.path) == ["presets/broken.yml", "presets/bugfix.yaml", "presets/feature.yml", "ralph.yml"])
        #expect(configs.first { $0.name == "feature" }?.description == "Feature Development Preset")
        #expect(configs.first { $0.name == "ralph" }?.description == "Project config")
        let presets = try await l.get("/presets").json(PresetsResponse.self).presets
        #expect(presets.map(\.name) == ["broken", "bugfix", "feature"])

        let hats = try await l.get("/hats").json(HatsResponse.self).hats
        #expect(hats.map(\.name) == ["Fixer", "Planner", "Reviewer", "🏗️ Builder"])
        let builder = try #require(hats.first { $0.id == "builder" })
        #expect(builder.color == "#c71585" && builder.emoji == "🏗️" && builder.triggers == ["build.task"] && builder.publishes == ["build.done", "build.blocked"])
        #expect(hats.first { $0.id == "planner" }?.color == "#00d9ff")
        #expect(hats.first { $0.id == "fixer" }?.color == "#ff006e")
        #expect(hats.first { $0.id == "reviewer" }?.sources == ["presets/feature.yml"])
        _ = try await l.get("/hats").json(ClientModels.Hats.self)

        let prompts = try await l.get("/prompts").json(ClientModels.Prompts.self).prompts
        #expect(prompts.map(\.path) == ["prompts/docs.md", "prompts/sub/refactor.md"])
        #expect(prompts[0].preview == "# Write the docs")
        #expect(prompts[1].preview == "Refactor the payment module so that it uses the...")

        let config = try await l.get("/configs/presets/feature.yml").json(FileContentResponse.self)
        #expect(config.contentType == "yaml" && config.content.hasPrefix("# Feature Development Preset"))
        let prompt = try await l.get("/prompts/prompts/sub/refactor.md").json(FileContentResponse.self)
        #expect(prompt.contentType == "markdown" && prompt.path == "prompts/sub/refactor.md")
        let missing = try await l.get("/configs/presets/nope.yml")
        #expect(missing.status == 404 && missing.text == #"{"error":"config_not_found: presets/nope.yml"}"#)
        #expect(try await l.get("/prompts/prompts/nope.md").text == #"{"error":"prompt_not_found: prompts/nope.md"}"#)
    }

    @Test("skills from the configured directories with front matter, overrides, and ralph's built-ins")
    func skills() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let skills = try await l.get("/skills").json(ClientModels.Skills.self)
        #expect(skills.skills.map(\.name) == ["deploy", "ralph-tools", "style"], "robot-interaction is disabled by an override")
        #expect(skills.count == 3)
        let deploy = try await l.get("/skills/deploy").json(SkillItem.self)
        #expect(deploy.description == "How to deploy" && deploy.tags == ["ops"] && deploy.hats == ["builder"] && deploy.source == "file")
        #expect(deploy.path == "skills/deploy/SKILL.md")
        let loaded = try await l.send("/skills/deploy/load", .post).json(SkillContentResponse.self)
        #expect(loaded.content == "<deploy-skill>\n# Deploy\nRun make deploy.\n\n</deploy-skill>")
        let builtin = try await l.send("/skills/ralph-tools/load", .post).json(SkillContentResponse.self)
        #expect(builtin.content.hasPrefix("<ralph-tools-skill>\n") && builtin.content.hasSuffix("</ralph-tools-skill>"))
        let unknown = try await l.get("/skills/robot-interaction")
        #expect(unknown.status == 404 && unknown.text.hasPrefix(#"{"error":"skill_not_found: "#))
    }

    @Test("config export, and import validated as a ralph config with a backup of the old file")
    func configExportImport() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let exported = try await l.send("/config/export", .post).json(ConfigExportResponse.self)
        #expect(exported.filename == "ralph.yml" && exported.content.hasPrefix("# Project config"))
        let old = try String(contentsOfFile: l.ws + "/ralph.yml", encoding: .utf8)

        let rejected: [(String, String)] = [
            ("a: [unclosed", "not valid YAML"),
            ("- just\n- a list\n", "YAML mapping"),
            ("hats:\n  b:\n    name: B\n", "hats.b.description is required"),
            ("hats:\n  b:\n    name: B\n    description: d\n    triggers: [task.start]\n", "reserved"),
            ("hats:\n  a:\n    name: A\n    description: d\n    triggers: [x]\n  b:\n    name: B\n    description: d\n    triggers: [x]\n", "ambiguous"),
            ("event_loop:\n  max_iterations: ten\n", "event_loop.max_iterations must be an integer"),
        ]
        for (content, problem) in rejected {
            let result = try await l.send("/config/import", .post, try String(decoding: WireJSON.encode(ConfigImportRequest(content: content)), as: UTF8.self))
            #expect(result.status == 400, "\(content)")
            #expect(result.text.hasPrefix(#"{"error":"invalid_config: "#) && result.text.contains(problem), "\(result.text)")
        }
        #expect(try String(contentsOfFile: l.ws + "/ralph.yml", encoding: .utf8) == old, "refused imports change nothing")

        let valid = "event_loop:\n  max_iterations: 7\nsomething_new: ok\nhats:\n  b:\n    name: B\n    description: builds\n    triggers: [build.task]\n"
        let imported = try await l.send("/config/import", .post, try String(decoding: WireJSON.encode(ConfigImportRequest(content: valid)), as: UTF8.self))
        #expect(imported.status == 200)
        let response = try imported.json(ConfigImportResponse.self)
        #expect(response.path == "ralph.yml" && response.status == "Configuration imported successfully")
        let backup = try #require(response.backup)
        #expect(try String(contentsOfFile: l.ws + "/ralph.yml", encoding: .utf8) == valid)
        #expect(try String(contentsOfFile: l.ws + "/" + backup, encoding: .utf8) == old)
    }

    @Test("memories: read with entries, write under the lock (through a worktree's symlink), export")
    func memories() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let memories = try await l.get("/memories").json(MemoriesContent.self)
        #expect(memories.entries.map(\.id) == ["mem-1737372000-a1b2", "mem-1737372100-00ff"])
        #expect(memories.entries[1].type == "decision" && memories.entries[1].content == "SQLite over Postgres\nfor the embedded store")
        _ = try await l.get("/memories").json(ClientModels.Memories.self)

        let text = "# Memories\n\n## Fixes\n\n### mem-1737372200-beef\n> Retry on EINTR\n<!-- tags: io | created: 2026-02-01 -->\n"
        let put = try await l.send("/memories", .put, try String(decoding: WireJSON.encode(MemoriesUpdate(content: text)), as: UTF8.self))
        #expect(put.status == 200)
        #expect(try put.json(MemoriesContent.self).entries.map(\.type) == ["fix"])
        #expect(try String(contentsOfFile: l.ws + "/.ralph/agent/memories.md", encoding: .utf8) == text)
        #expect(FileManager.default.fileExists(atPath: l.ws + "/.ralph/agent/memories.md.lock"))

        // A worktree's memories.md is a symlink to the main repository's: the write must keep the link.
        let worktree = l.ws + "/.worktrees/wt"
        try FileManager.default.createDirectory(atPath: worktree + "/.ralph/agent", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: worktree + "/.ralph/agent/memories.md", withDestinationPath: l.ws + "/.ralph/agent/memories.md")
        let viaLink = try await l.send("/memories?workspace=.worktrees/wt", .put, ##"{"content":"# Memories\n"}"##)
        #expect(viaLink.status == 200)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: worktree + "/.ralph/agent/memories.md") == l.ws + "/.ralph/agent/memories.md")
        #expect(try String(contentsOfFile: l.ws + "/.ralph/agent/memories.md", encoding: .utf8) == "# Memories\n")

        let export = try await l.send("/memories/export", .post).json(MemoriesExport.self)
        #expect(export.content == "# Memories\n" && export.filename.hasPrefix("memories-") && export.filename.hasSuffix(".md"))
        let empty = try await l.send("/memories/export?workspace=.worktrees", .post)
        #expect(empty.status == 404 && empty.text.hasPrefix(#"{"error":"memories_not_found"#))
    }

    @Test("tasks: every status, filter and order, create and update in ralph's format, unknown fields kept")
    func tasks() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let all = try await l.get("/tasks").json(ClientModels.Tasks.self)
        #expect(all.total == 4)
        #expect(all.tasks.map(\.id) == ["task-1769046800-0001", "task-1769046733-f668", "task-1769046900-0002", "task-1769047000-0003"])
        #expect(all.tasks[1].updated_at == "2026-01-22T01:52:48.891656+00:00")
        #expect(try await l.get("/tasks?status=IN_PROGRESS").json(TasksResponse.self).tasks.map(\.title) == ["In progress"])

        #expect(try await l.send("/tasks", .post, #"{"title":"  "}"#).text == #"{"error":"invalid_body: title cannot be empty"}"#)
        #expect(try await l.send("/tasks", .post, #"{"title":"x","priority":9}"#).text == #"{"error":"invalid_body: priority must be between 1 and 5"}"#)
        Fixture.write("primary-20260205-083922", to: l.ws + "/.ralph/current-loop-id")
        let created = try await l.send("/tasks", .post, #"{"title":"Ship it","description":"today"}"#)
        #expect(created.status == 201)
        let task = try created.json(TaskItem.self)
        #expect(task.priority == 3 && task.status == "open" && task.loopId == "primary-20260205-083922" && task.id.hasPrefix("task-"))

        let closed = try await l.send("/tasks/\(task.id)", .put, #"{"status":"Closed"}"#).json(TaskItem.self)
        #expect(closed.status == "closed" && closed.updatedAt != nil)
        let bad = try await l.send("/tasks/\(task.id)", .put, #"{"status":"done"}"#)
        #expect(bad.status == 400 && bad.text.contains("must be one of: open, in_progress, closed, failed"))
        #expect(try await l.send("/tasks/task-0-0000", .put, #"{"status":"open"}"#).text == #"{"error":"task_not_found: task-0-0000"}"#)

        let file = try String(contentsOfFile: l.ws + "/.ralph/agent/tasks.jsonl", encoding: .utf8)
        #expect(file.contains("this line is not json and must survive"))
        #expect(file.contains(#""owner_hat_id":"builder""#))
        let written = try #require(file.split(separator: "\n").first { $0.contains(task.id) })
        #expect(written.hasPrefix(#"{"id":"\#(task.id)","title":"Ship it","description":"today","status":"closed","priority":3,"blocked_by":[],"loop_id":"primary-20260205-083922","created":""#))
    }

    @Test("tasks written by the server and by another process holding the same flock: no lost update")
    func concurrentTaskWrites() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let dir = l.ws + "/.ralph/agent"
        let writes = 30
        // Another process doing ralph's read-modify-write under the sidecar lock.
        let script = """
            for i in $(seq 1 \(writes)); do
              flock \(dir)/tasks.jsonl.lock sh -c 'cat \(dir)/tasks.jsonl > \(dir)/t.tmp; echo "{\\"id\\":\\"task-9-$1\\",\\"title\\":\\"external $1\\",\\"status\\":\\"open\\",\\"priority\\":3,\\"blocked_by\\":[],\\"created\\":\\"2026-01-01T00:00:00+00:00\\"}" >> \(dir)/t.tmp; sleep 0.005; mv \(dir)/t.tmp \(dir)/tasks.jsonl' sh $i
            done
            """
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/bin/sh")
        other.arguments = ["-c", script]
        try other.run()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<writes { group.addTask { try await l.send("/tasks", .post, #"{"title":"server \#(i)"}"#).status } }
            for try await status in group { #expect(status == 201) }
        }
        other.waitUntilExit()
        #expect(other.terminationStatus == 0)
        let titles = try await l.get("/tasks").json(TasksResponse.self).tasks.map(\.title)
        #expect(titles.filter { $0.hasPrefix("server ") }.count == writes)
        #expect(titles.filter { $0.hasPrefix("external ") }.count == writes)
    }

    @Test("loops: live entries only, merge queue with every state, merge and discard through ralph")
    func loopsAndQueue() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let loops = try await l.get("/loops").json(ClientModels.Loops.self).loops
        #expect(loops.map(\.id).sorted() == ["bright-maple", "loop-1769046733-a3f2"], "the dead pid's loop is not shown")
        #expect(loops.first { $0.id == "bright-maple" }?.status == "worktree")
        #expect(loops.first { $0.id == "loop-1769046733-a3f2" }?.status == "primary")
        #expect(try await l.get("/loops/bright-maple").json(LoopInfo.self).prompt == "side quest")
        #expect(try await l.get("/loops/dead-loop").text == #"{"error":"loop_not_found: dead-loop"}"#)

        let queue = try await l.get("/merge-queue").json(MergeQueueResponse.self)
        #expect(queue.pending.map(\.id) == ["busy-bee", "quiet-river"])
        #expect(queue.pending.map(\.state) == ["merging", "queued"])
        #expect(queue.completed.map(\.id) == ["nope", "tricky", "done-deal"])
        #expect(queue.completed.map(\.status) == ["completed", "failed", "completed"])
        let merged = try #require(queue.completed.first { $0.id == "done-deal" })
        #expect(merged.commit == "abc1234" && merged.mergedAt == "2026-02-05T09:05:00Z" && merged.prompt == "merged one")
        #expect(queue.completed.first { $0.id == "tricky" }?.reason == "merge conflict in main.swift")
        _ = try await l.get("/merge-queue").json(ClientModels.Queue.self)

        #expect(try await l.send("/loops/loop-1769046733-a3f2/merge", .post).text == #"{"error":"invalid_operation: cannot merge primary loop"}"#)
        #expect(try await l.send("/loops/no-such-loop/discard", .post).status == 404)
        // Merged already, its worktree gone: nothing for ralph to do, said as a conflict rather than ralph's failure.
        let done = try await l.send("/loops/done-deal/merge", .post)
        #expect(done.status == 409 && done.text.contains("loop done-deal is already merged"), "\(done.status) \(done.text)")
        // A finished worktree loop (no longer in the registry, but in the queue and on disk) can be merged.
        try FileManager.default.createDirectory(atPath: l.ws + "/.worktrees/quiet-river", withIntermediateDirectories: true)
        let merge = try await l.send("/loops/quiet-river/merge", .post)
        #expect(merge.status == 200)
        #expect(try merge.json(OperationResponse.self).message == "Loop quiet-river merged successfully")
        #expect(try await l.get("/merge-queue").json(MergeQueueResponse.self).completed.first { $0.id == "quiet-river" }?.state == "merged")
        // ralph refuses to merge a loop that still runs: its words come back.
        try FileManager.default.createDirectory(atPath: l.ws + "/.worktrees/bright-maple", withIntermediateDirectories: true)
        let running = try await l.send("/loops/bright-maple/merge", .post)
        #expect(running.status == 500 && running.text.contains("merge_failed: Error: loop bright-maple is still running"))
    }

    @Test("POST /api/loops runs ralph, which puts the loop in a worktree when the primary loop is busy")
    func spawnLoop() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        Fixture.write("ref: refs/heads/main\n", to: l.ws + "/.git/HEAD")
        Fixture.write("fake_ralph:\n  iterations: 500\n  pace: 0.1\n", to: l.ws + "/presets/slow.yml")
        let primary = try await l.h.post("/api/sessions", #"{"config_path":"presets/slow.yml","prompt":"primary"}"#)
        #expect(primary.status == 201)
        let wrongBranch = try await l.send("/loops", .post, #"{"prompt":"x","base_branch":"develop"}"#)
        #expect(wrongBranch.status == 400 && wrongBranch.text.contains("checked-out branch 'main'") && wrongBranch.text.contains("send 'main' or none"))
        Fixture.write("3f786850e387550fdab836ed7e6dc881de23001b\n", to: l.ws + "/.git/HEAD")
        let detached = try await l.send("/loops", .post, #"{"prompt":"x","base_branch":"main"}"#)
        #expect(detached.status == 400 && detached.text.contains("detached HEAD"), "\(detached.text)")
        Fixture.write("ref: refs/heads/main\n", to: l.ws + "/.git/HEAD")
        let spawned = try await l.send("/loops", .post, #"{"prompt":"side quest","config_path":"presets/slow.yml","base_branch":"main"}"#)
        #expect(spawned.status == 201)
        let loop = try spawned.json(SpawnLoopResponse.self)
        #expect(loop.worktreePath == l.ws + "/.worktrees/\(loop.id)")
        #expect(try await l.get("/loops/\(loop.id)").json(LoopInfo.self).pid == loop.pid)
        let session = try await l.h.status(try #require(loop.sessionId))
        #expect(session.workspace == ".worktrees/\(loop.id)" && session.mode == .live)
        for id in [try primary.json(StartSessionResponse.self).id, loop.sessionId!] {
            #expect(try await HTTP.request(l.h.server.base + "/api/sessions/\(id)", method: .DELETE).status == 200)
        }
    }

    @Test("host metrics are rates between two samples; the busiest processes are listed")
    func host() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let asked = ContinuousClock.now
        let metrics = try await l.get("/host/metrics").json(HostMetrics.self)
        let again = try await l.get("/host/metrics").json(HostMetrics.self)
        // Cached for a second (checked when the machine was quick enough to ask twice within it).
        if ContinuousClock.now - asked < .milliseconds(900) { #expect(again.sampledAt == metrics.sampledAt, "cached for a second") }
        #expect(metrics.intervalSecs >= 0.4, "two samples apart in time")
        #expect(metrics.cpu.cores >= 1 && (0...100).contains(metrics.cpu.usagePercent) && metrics.cpu.loadAverage.count == 3)
        #expect(metrics.memory.totalGb > 0 && metrics.memory.usedGb > 0 && metrics.disk.totalGb > 0)
        #expect(metrics.disk.path == l.ws)
        _ = try await l.get("/host/metrics").json(ClientModels.Metrics.self)
        let processes = try await l.get("/host/processes").json(ClientModels.Processes.self).processes
        #expect(!processes.isEmpty && processes.count <= 10)
        #expect(zip(processes, processes.dropFirst()).allSatisfy { $0.cpu_percent >= $1.cpu_percent })
    }

    @Test("roles: reads for viewers, every write for admins only")
    func roles() async throws {
        let l = try await LibraryHarness.start { $0.apiKey = "admin-key-for-library-tests" }
        defer { l.h.stop() }
        let viewer = try await l.send("/keys", .post, #"{"role":"viewer"}"#, key: "admin-key-for-library-tests").json(CreatedAPIKey.self).secret
        let op = try await l.send("/keys", .post, #"{"role":"operator"}"#, key: "admin-key-for-library-tests").json(CreatedAPIKey.self).secret
        for path in ["/configs", "/prompts", "/presets", "/hats", "/skills", "/memories", "/tasks", "/loops", "/merge-queue"] {
            #expect(try await HTTP.get(l.base + path, headers: [("X-Api-Key", viewer)]).status == 200, "\(path)")
        }
        let writes: [(String, HTTPMethodName, String)] = [
            ("/memories", .put, #"{"content":"x"}"#), ("/tasks", .post, #"{"title":"t"}"#), ("/tasks/task-1769046800-0001", .put, #"{"status":"closed"}"#),
            ("/config/import", .post, #"{"content":"a: 1"}"#), ("/loops", .post, #"{"prompt":"p"}"#), ("/loops/bright-maple/discard", .post, ""),
        ]
        for (path, method, body) in writes {
            for key in [viewer, op] {
                #expect(try await l.send(path, method, body, key: key).text == #"{"error":"forbidden: needs admin"}"#, "\(path)")
            }
        }
        #expect(try await l.send("/tasks", .post, #"{"title":"t"}"#, key: "admin-key-for-library-tests").status == 201)
    }
}
