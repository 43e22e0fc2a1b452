import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing
import TestSupport

@Suite("Create-run wizard against the real server")
@MainActor
struct RunsNewRunTests {
    /// A workspace root with ralph.yml (fake-ralph: a short run), two presets and two prompts.
    func workspace(_ h: SessionsHarness) throws {
        try h.write("ralph.yml", "# The project's loop\nfake_ralph:\n  iterations: 50\n  pace: 0.2\n")
        try h.write("presets/feature.yml", "# A feature with tests\nfake_ralph:\n  iterations: 50\n  pace: 0.2\n")
        try h.write("presets/docs.yml", "fake_ralph:\n  iterations: 1\n")
        try h.write("prompts/task.md", "# Add a flag\n\nWith tests.\n")
        try h.write("prompts/docs/readme.md", "Write the README\n")
    }

    func wizard(_ h: SessionsHarness, role: Role = .admin, prefill: RunPrefill? = nil) -> NewRunModel {
        NewRunModel(client: h.client(role), capabilities: Capabilities(role: role), prefill: prefill)
    }

    @Test("only admins may start runs; others see why and nothing is sent")
    func adminOnly() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        for role in [Role.viewer, .operator] {
            let w = wizard(h, role: role)
            w.promptText = "Do it"
            w.configPath = "ralph.yml"
            #expect(!w.isAllowed)
            #expect(w.deniedText.contains("needs an admin key; yours is \(role == .operator ? "an operator" : "a viewer") key"))
            #expect(await w.submit() == nil)
            #expect(w.started == nil && w.banner == nil)
        }
        #expect(try await h.admin.sessions().isEmpty, "no run was started")
        await h.stop()
    }

    @Test("the lists: ralph.yml first, then the presets (each once), chosen by default; the prompts; previews")
    func lists() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        let w = wizard(h)
        await w.loadLists()
        #expect(w.configs.map(\.path) == ["ralph.yml", "presets/docs.yml", "presets/feature.yml"])
        #expect(w.configs.map(\.group) == [.workspace, .preset, .preset])
        #expect(w.configs[0].title == "ralph.yml — The project's loop")
        #expect(w.configs[1].title == "presets/docs.yml")
        #expect(w.configPath == "ralph.yml")
        #expect(w.prompts.map(\.path).sorted() == ["prompts/docs/readme.md", "prompts/task.md"])
        #expect(w.configPreview?.content.hasPrefix("# The project's loop") == true)
        #expect(w.promptPreview == nil, "the prompt is typed by default")
        w.promptSource = .file
        w.promptPath = "prompts/task.md"
        await w.loadPreviews()
        #expect(w.promptPreview?.contentType == "markdown" && w.promptPreview?.text == "# Add a flag\n\nWith tests.\n")
        await h.stop()
    }

    @Test("each step is checked before the next: the problems show only after trying, and name the field")
    func stepChecks() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        let w = wizard(h)
        #expect(w.step == .place)
        #expect(w.problem(.promptText) == nil, "nothing shown before a try")
        #expect(await w.next())
        #expect(w.step == .config && w.configPath == "ralph.yml", "leaving the first step read the lists")
        w.configPath = nil
        #expect(await w.next() == false)
        #expect(w.problem(.config) == "Choose a config.")
        w.configPath = "presets/feature.yml"
        #expect(await w.next())
        #expect(w.step == .prompt)
        #expect(await w.next() == false)
        #expect(w.problem(.promptText) == "Write what ralph should do.")
        w.promptSource = .file
        #expect(await w.next() == false)
        #expect(w.problem(.promptFile) == "Choose a prompt file, or switch to Write text.")
        w.promptSource = .text
        w.promptText = String(repeating: "x", count: NewRunModel.maxPromptBytes + 1)
        #expect(w.problem(.promptText)?.contains("longer than 64 KiB") == true)
        w.promptText = "  Add a --json flag  "
        #expect(await w.next())
        #expect(w.step == .options)
        for bad in ["0", "abc", "100001", "2.5", "-3"] {
            w.maxIterations = bad
            #expect(await w.next() == false, "max iterations \(bad)")
            #expect(w.problem(.maxIterations) == "A whole number from 1 to 100,000.")
        }
        w.maxIterations = " 5 "
        w.backend = "not-a-backend"
        #expect(await w.next() == false)
        #expect(w.problem(.backend) == "Not a backend ralph knows.")
        w.backend = "claude"
        #expect(await w.next())
        #expect(w.step == .review)
        #expect(w.reviewRows.map(\.value) == ["workspace root", "presets/feature.yml", "Add a --json flag", "5", "claude"])
        #expect(w.commandPreview == "ralph run -c presets/feature.yml -p \"…\" --autonomous --no-tui --max-iterations 5 -b claude")
        #expect(
            w.request
                == StartSessionRequest(configPath: "presets/feature.yml", prompt: "Add a --json flag", workingDir: nil, backend: "claude", maxIterations: 5))
        #expect(w.primaryButtonTitle == "Start run")
        w.back()
        #expect(w.step == .options && w.canGoBack)
        await h.stop()
    }

    @Test("starting: the request reaches the server, fake-ralph runs, and the wizard holds the new run's id")
    func start() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        let w = wizard(h, prefill: RunPrefill(configPath: "presets/feature.yml", promptPath: "prompts/task.md"))
        await w.loadLists()
        #expect(w.configPath == "presets/feature.yml" && w.promptSource == .file && w.promptPath == "prompts/task.md", "the library's hand-over")
        #expect(w.promptPreview?.path == "prompts/task.md")
        w.maxIterations = "7"
        while w.step != .review {
            guard await w.next() else {
                Issue.record("stuck at \(w.step)")
                break
            }
        }
        await w.advance()
        let started = try #require(w.started)
        #expect(w.startedText != nil)
        #expect(!w.canAdvance, "started once")
        let client = h.admin
        try await eventually(10, "the run to be live") { try await client.status(started.id).mode == .live }
        #expect(try await client.status(started.id).taskName == "# Add a flag", "the prompt file was passed")
        // The config asks for 50 iterations; --max-iterations 7 from the wizard stops it at 7.
        try await eventually(20, "the run to finish") { try await client.status(started.id).mode == .complete }
        #expect(try await client.status(started.id).iteration == 7)
        await h.stop()
    }

    @Test("a working directory: its own lists; one outside the roots or missing is refused on the first step")
    func workingDirectory() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        try h.write("sub/ralph.yml", "fake_ralph:\n  iterations: 50\n  pace: 0.2\n")
        try h.write("sub/prompts/sub-task.md", "Sub task\n")
        let w = wizard(h)
        w.workingDir = "nowhere"
        #expect(await w.next() == false)
        #expect(w.step == .place)
        #expect(w.problem(.workingDir)?.hasPrefix("This directory cannot be used:") == true)
        w.workingDir = "../.."
        w.edited(.workingDir)
        #expect(w.problem(.workingDir) == nil, "an edit clears the server's word")
        #expect(await w.next() == false)
        #expect(w.problem(.workingDir) != nil)
        w.workingDir = " sub "
        w.edited(.workingDir)
        #expect(await w.next())
        #expect(w.configs.map(\.path) == ["ralph.yml"])
        #expect(w.prompts.map(\.path) == ["prompts/sub-task.md"])
        w.promptText = "Work in sub"
        #expect(await w.next())
        #expect(await w.next())
        #expect(w.request?.workingDir == "sub")
        let started = try #require(await w.submit())
        let client = h.admin
        try await eventually(10, "the run to be live") { try await client.status(started.id).mode == .live }
        #expect(try await client.status(started.id).workspace == "sub")
        _ = try await client.stop(started.id)
        await h.stop()
    }

    @Test("the prompt limit is the server's (64 KiB of UTF-8): the longest allowed text starts a run, one byte more is refused")
    func promptLimitIsTheServers() async throws {
        #expect(NewRunModel.maxPromptBytes == 65536)
        let h = try await SessionsHarness.start()
        try workspace(h)
        let w = wizard(h, prefill: RunPrefill(configPath: "presets/docs.yml"))
        // Bytes, not characters: "é" is two bytes in UTF-8.
        w.promptText = String(repeating: "é", count: NewRunModel.maxPromptBytes / 2) + "x"
        #expect(w.problems[.promptText] == "The prompt is longer than 64 KiB; use a prompt file.")
        w.promptText.removeLast()
        #expect(w.problems[.promptText] == nil)
        while w.step != .review {
            guard await w.next() else {
                Issue.record("stuck at \(w.step): \(w.problems)")
                break
            }
        }
        let started = try #require(await w.submit(), "the server accepts the longest prompt the wizard allows: \(String(describing: w.banner))")
        let client = h.admin
        try await eventually(20, "the run to finish") { try await client.status(started.id).mode == .complete }
        await h.stop()
    }

    @Test("a refusal goes back to the step and field it concerns (a prompt file deleted meanwhile)")
    func refusalGoesToItsField() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        let w = wizard(h, prefill: RunPrefill(promptPath: "prompts/task.md"))
        while w.step != .review {
            guard await w.next() else {
                Issue.record("stuck at \(w.step)")
                break
            }
        }
        try FileManager.default.removeItem(atPath: h.root + "/prompts/task.md")
        #expect(await w.submit() == nil)
        #expect(w.step == .prompt)
        #expect(w.problem(.promptFile)?.hasPrefix("prompt not found: prompts/task.md") == true)
        #expect(w.banner == nil)
        w.edited(.promptFile)
        #expect(w.problem(.promptFile) == nil)
        await h.stop()
    }
}
