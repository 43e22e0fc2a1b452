import Foundation
import RalphAPI
import Testing

@testable import RalphMobilePresentation

/// Where diffs and backends show in the chat screens, from fixtures: the approval sheet and inbox row, the tool call,
/// the backend choices of the new-conversation form, rows and header.
@Suite("Chat values: diffs on approvals and tool calls, backends")
struct ChatDiffValuesTests {
    @Test("an Edit's sheet: the file first, what it will change as a summary and as lines, the input closed")
    func editSheet() throws {
        let sheet = ApprovalSheet(DiffFixtures.editApproval, canDecide: true)
        #expect(sheet.prominent?.label == "File" && sheet.hasDiffs && !sheet.fullInputStartsExpanded)
        #expect(sheet.diffTitle == "What it will change")
        #expect(sheet.diffSummaries.map(\.text) == ["Sources/Clock.swift · +4 −2"])
        let file = try #require(sheet.diffFiles.first)
        #expect(file.lines.filter { $0.kind == .added }.map(\.text).first == "/// The current time, read once per report.")
        #expect(sheet.scope == "Edit on this same file")
        let bash = ApprovalSheet(ChatFixtures.approval, canDecide: true)
        #expect(!bash.hasDiffs && bash.diffFiles.isEmpty)
    }

    @Test("Codex's apply_patch: its files first, one diff per file, the session rule covers the same set of files; its shell is a Command")
    func codexSheet() {
        let sheet = ApprovalSheet(DiffFixtures.patchApproval, canDecide: true)
        #expect(sheet.prominent == ApprovalSheet.Prominent(label: "Files", text: "Sources/Clock.swift\nscripts/report.py", note: nil))
        #expect(sheet.diffSummaries.map(\.text) == ["Sources/Clock.swift · +4 −2", "scripts/report.py · new file · +3"])
        #expect(sheet.scope == "apply_patch on this same set of files")
        #expect(sheet.sessionButtonLabel == "Allow apply_patch(Sources/Clock.swift, scripts/report.py) for this session")
        let shell = Approval(
            id: "s", conversationId: "c", turnId: "t", toolUseId: nil, toolName: "shell", input: ["command": "ls -la", "cwd": "/w/app"],
            createdAt: Timestamp.now()
        )
        #expect(ApprovalSheet(shell, canDecide: true).prominent?.label == "Command")
        #expect(ChatToolCallItem.summary(name: "apply_patch", input: DiffFixtures.patchApproval.input) == "Sources/Clock.swift, scripts/report.py")
    }

    @Test("an inbox row says what the edit will change, also to VoiceOver")
    func inboxRow() {
        let row = ApprovalRow(DiffFixtures.patchApproval, title: "Port the report script", selected: false)
        #expect(row.diffSummary == "2 files · +7 −2")
        #expect(row.accessibilityLabel(now: ChatFixtures.now).hasPrefix("apply_patch: Sources/Clock.swift, scripts/report.py, 2 files · +7 −2, in Port"))
        #expect(ApprovalRow(ChatFixtures.approval, title: "x", selected: false).diffSummary == nil)
    }

    @Test("a tool call that edited a file carries what it changed: a line beside its state and the diff when opened")
    func toolCall() throws {
        let item = ChatToolCallItem(DiffFixtures.appliedEdit, turnRunning: false, pendingApprovalID: nil, decision: nil)
        #expect(item.state == .done && item.hasDiffs && item.diffTitle == "What it changed")
        #expect(item.diffLine == "Sources/Clock.swift · +4 −2")
        #expect(item.accessibilityLabel == "Edit, /Users/ada/work/app/api/Sources/Clock.swift, done, Sources/Clock.swift · +4 −2")
        #expect(try #require(item.diffFiles.first).hunks.count == 1)
        let plain = ChatToolCallItem(ToolCall(toolUseId: "x", name: "Bash", input: ["command": "ls"]), turnRunning: true, pendingApprovalID: nil, decision: nil)
        #expect(!plain.hasDiffs && plain.diffLine == nil)
    }

    @Test("backend choices: names in words, the backend's own default mode first, one the server cannot run disabled with why")
    func backendChoices() {
        let choices = DiffFixtures.agents.map(ChatBackendChoice.init)
        #expect(choices.map(\.id) == ["claude", "codex"] && choices.map(\.title) == ["Claude Code", "Codex"])
        #expect(choices[0].label == "Claude Code 2.1.330" && choices[0].isUsable)
        #expect(choices[0].permissionModes == ["default", "acceptEdits", "auto", "bypassPermissions", "dontAsk", "plan"])
        #expect(!choices[1].isUsable && choices[1].unavailableText == "Not available: looked for codex: not found on PATH")
        #expect(choices[1].accessibilityLabel == "Codex, not available: looked for codex: not found on PATH")
        #expect(choices[1].permissionModes == ["untrusted", "on-request", "never"])
        #expect(ConversationWords.permissionMode("untrusted").hasPrefix("untrusted — asks before any command"))
        #expect(ChatBackendChoice.title("gemini") == "gemini")
        let checking = ChatBackendChoice(
            AgentInfo(name: "claude", command: "claude", version: nil, permissionModes: ["plan"], error: "still asking claude for its version")
        )
        #expect(checking.isUsable && checking.label == "Claude Code (still being checked)", "a server just started is still asking")
    }

    @Test("the backend on a conversation's row and in the chat header")
    @MainActor
    func backendShown() {
        let row = ConversationRow(DiffFixtures.codexConversation)
        #expect(row.backendText == "Codex")
        #expect(row.accessibilityLabel(now: ChatFixtures.now).hasPrefix("Port the report script, Codex, "))
        let header = ChatHeader(conversation: DiffFixtures.codexConversation, info: nil, status: .idle, connection: .connected, reconnects: 0)
        #expect(header.backendText == "Codex" && header.accessibilityLabel.hasPrefix("Port the report script, Codex, idle"))
        #expect(ChatHeader(conversation: nil, info: nil, status: .idle, connection: .connecting, reconnects: 0).backendText == nil)
    }
}
