import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The agents a conversation can run, against the real server: the new-conversation form's backend picker (the real
/// Claude CLI and the real Codex CLI, each against its model API double), Codex's apply_patch with its diff, and
/// Settings listing every agent.
@Suite("Backends on the chat screens, against the real server and the real Claude and Codex CLIs", .serialized)
@MainActor
struct ChatBackendTests {
    /// Waits until the server has heard back from every agent CLI (a server just started may still be asking them
    /// about themselves; health waits 3 s for the answer).
    static func untilAgentsAnswered(_ client: RalphClient) async throws {
        try await eventually(30, "the agents' answers") {
            try await client.health().agents?.allSatisfy { !($0.error ?? "").hasPrefix("still asking") } == true
        }
    }

    @Test("the form offers both agents; Codex brings its own modes; its apply_patch asks with the diff, and the call shows it once allowed")
    func codexConversation() async throws {
        let h = try await ChatHarness.start(codex: true)
        defer { Task { await h.stop() } }
        try await Self.untilAgentsAnswered(h.client)
        let form = NewConversationModel(client: h.client, directory: "app")
        await form.loadAgent()
        #expect(form.backends.map(\.id) == ["claude", "codex"] && form.backends.allSatisfy(\.isUsable), "\(form.backends)")
        #expect(form.backend == "claude" && form.permissionModes.first == "default" && form.permissionModes.contains("plan"))
        form.permissionMode = "plan"
        form.choose(backend: "codex")
        #expect(form.permissionModes == ["untrusted", "on-request", "never"] && form.permissionMode == "untrusted", "plan is Claude's")
        #expect(form.permissionModesNote == "The modes codex \(RealCodex.pinnedVersion) accepts.")
        #expect(form.chosenBackend?.label == "Codex \(RealCodex.pinnedVersion)")
        #expect(form.request.backend == "codex" && form.request.permissionMode == nil, "Codex's default is sent as none")
        form.permissionMode = "on-request"
        #expect(form.request.permissionMode == "on-request")
        form.permissionMode = "untrusted"
        let path = h.root + "/app/fresh.txt"
        form.firstMessage = model(["write \(path) :: hello\\nworld"], ["say Done."])
        let created = try #require(await form.create())
        #expect(created.backend == "codex" && form.firstMessageError == nil)
        #expect(ConversationRow(created).backendText == "Codex")

        let chat = try await ChatModelTests.open(h, created.id)
        #expect(chat.header.backendText == "Codex")
        try await chatUntil(60, "the approval sheet") { chat.approvalSheet != nil }
        let sheet = try #require(chat.approvalSheet)
        #expect(sheet.toolName == "apply_patch" && sheet.prominent?.label == "File")
        #expect(sheet.diffSummaries.map(\.text) == ["fresh.txt · new file · +2"])
        #expect(ChatDiffTests.signed(sheet.diffFiles.first) == ["+hello", "+world"])
        #expect(await chat.decide(sheet.id, .allow).closesSheet)
        try await chatUntil(60, "the turn to end") { !chat.conversation.isBusy && chat.turns.last?.replies.last?.markdown.plainText == "Done." }
        let tool = try #require(ChatModelTests.tools(chat).first { $0.name == "apply_patch" })
        #expect(tool.diffLine == "fresh.txt · new file · +2")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("hello\nworld"))
        chat.suspend()
    }

    @Test("an agent the server cannot run is offered disabled with why, and choosing it is a problem on its field")
    func unavailableBackend() async throws {
        let h = try await ChatHarness.start { $0.codexCommand = "/nonexistent/codex" }
        defer { Task { await h.stop() } }
        let form = NewConversationModel(client: h.client, directory: "app")
        #expect(form.backends.isEmpty && form.request.backend == nil, "nothing is sent before the server said what it runs")
        await form.loadAgent()
        let codex = try #require(form.backends.last)
        #expect(codex.id == "codex" && !codex.isUsable, "\(codex)")
        #expect(codex.unavailableText?.hasPrefix("Not available: ") == true && codex.unavailableText?.contains("/nonexistent/codex") == true)
        #expect(form.backend == "claude" && form.canCreate && form.request.backend == "claude")
        form.choose(backend: "codex")
        #expect(form.localProblems[.backend] == codex.unavailableText && !form.canCreate)
        #expect(form.permissionModesNote.hasPrefix("Codex cannot be used on this server"))
        #expect(await form.create() == nil)
        #expect(try await h.client.conversations().items.isEmpty, "nothing was sent")
        form.choose(backend: "claude")
        #expect(form.canCreate && form.localProblems[.backend] == nil)
    }

    @Test("Settings lists every agent: its command, version and modes, or why it cannot be used")
    func settingsListsAgents() async throws {
        let h = try await AppHarness.start(chat: true) { $0.codexCommand = "/nonexistent/codex" }
        defer { Task { await h.stop() } }
        try await Self.untilAgentsAnswered(try h.client())
        let settings = SettingsModel(app: try await h.connectedApp())
        let rows = Dictionary(uniqueKeysWithValues: settings.serverRows.map { ($0.label, $0) })
        let claude = try #require(rows["Claude Code"])
        #expect(claude.value.contains(" \(RealClaude.pinnedVersion) · modes default, ") && claude.monospaced, "\(claude.value)")
        let codex = try #require(rows["Codex"])
        #expect(codex.value.hasPrefix("Not available: ") && codex.value.contains("/nonexistent/codex") && !codex.monospaced, "\(codex.value)")
        #expect(settings.agentRows.map(\.label) == ["Claude Code", "Codex"])
    }
}
