import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// Diffs of file edits on the chat screens against the real server, whose conversations run the real Claude CLI asking
/// `fake-anthropic` for each reply: the approval sheet and the inbox before the edit, the tool call after it.
@Suite("Diffs of edits on the chat screens, against the real server and the real Claude CLI", .serialized)
@MainActor
struct ChatDiffTests {
    /// `sign + text` of each line.
    static func signed(_ file: DiffFile?) -> [String] { file?.lines.map { $0.sign + $0.text } ?? [] }

    @Test("an Edit asks: the sheet and the inbox show its diff against the file now; allowed, the tool call shows what it changed, also read again")
    func editBeforeAndAfter() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let file = h.root + "/app/notes.txt"
        try "one\ntwo\nthree\n".write(toFile: file, atomically: true, encoding: .utf8)
        let chat = try await ChatModelTests.open(h)
        let inbox = await ApprovalsInboxTests.inbox(h)
        chat.composer.text = model(["edit \(file) :: two :: 2"], ["say Done."])
        #expect(await chat.send(mode: .queue))
        try await chatUntil(30, "the approval sheet") { chat.approvalSheet != nil }
        let sheet = try #require(chat.approvalSheet)
        #expect(sheet.title == "Allow Edit?" && sheet.prominent?.label == "File" && sheet.prominent?.text == file)
        #expect(sheet.hasDiffs && !sheet.fullInputStartsExpanded)
        #expect(sheet.diffSummaries.map(\.text) == ["notes.txt · +1 −1"])
        let proposed = try #require(sheet.diffFiles.first)
        #expect(Self.signed(proposed) == [" one", "-two", "+2", " three"])
        #expect(proposed.lines.map(\.oldNumber) == [1, 2, nil, 3] && proposed.lines.map(\.newNumber) == [1, nil, 2, 3])
        #expect(proposed.hunks.first?.header == "@@ -1,3 +1,3 @@" && proposed.language == .plain)

        // The inbox has the same, read from the server's pending approvals.
        try await chatUntil(10, "the inbox row") { inbox.rows.first?.diffSummary == "notes.txt · +1 −1" }
        #expect(Self.signed(inbox.sheet(for: sheet.id)?.diffFiles.first) == [" one", "-two", "+2", " three"])

        #expect(await chat.decide(sheet.id, .allow).closesSheet)
        try await chatUntil(30, "the turn to end") { !chat.conversation.isBusy && chat.turns.last?.replies.last?.markdown.plainText == "Done." }
        let tool = try #require(ChatModelTests.tools(chat).first)
        #expect(tool.name == "Edit" && tool.state == .done)
        #expect(tool.diffLine == "notes.txt · +1 −1" && tool.diffTitle == "What it changed")
        #expect(Self.signed(tool.diffFiles.first) == [" one", "-two", "+2", " three"], "what the edit changed, from tool_end")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "one\n2\nthree\n")

        // Opened again, the stored call still carries it.
        let reopened = try await ChatModelTests.open(h, chat.conversationID)
        #expect(ChatModelTests.tools(reopened).first?.diffLine == "notes.txt · +1 −1")
        chat.suspend()
        reopened.suspend()
        inbox.suspend()
    }

    @Test("a Write of a new Swift file: the sheet shows it whole as added lines, coloured as Swift")
    func newSwiftFile() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await ChatModelTests.open(h)
        let path = h.root + "/app/Clock.swift"
        chat.composer.text = model([#"write \#(path) :: import Foundation\n\nlet limit = 42 // seconds"#], ["say Written."])
        #expect(await chat.send(mode: .queue))
        try await chatUntil(30, "the approval sheet") { chat.approvalSheet != nil }
        let sheet = try #require(chat.approvalSheet)
        #expect(sheet.diffSummaries.map(\.text) == ["Clock.swift · new file · +3"])
        let file = try #require(sheet.diffFiles.first)
        #expect(file.language == .swift && file.lines.map(\.kind) == [.added, .added, .added, .marker], "the content ends without a newline")
        #expect(file.lines.map(\.newNumber) == [1, 2, 3, nil] && file.lines.last?.text == "No newline at end of file")
        #expect(file.lines[2].tokens.map(\.kind) == [.keyword, .plain, .number, .plain, .comment])
        #expect(await chat.decide(sheet.id, .deny).closesSheet)
        try await chatUntil(30, "the turn to end") { !chat.conversation.isBusy }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(ChatModelTests.tools(chat).first?.hasDiffs == false, "a denied edit changed nothing")
        chat.suspend()
    }
}
