import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The approvals inbox against the real server, with tool calls asked for by the real Claude CLI.
@Suite("Approvals inbox against the real server and the real Claude CLI", .serialized)
@MainActor
struct ApprovalsInboxTests {
    static func inbox(_ h: ChatHarness, role: Role = .operator, client: RalphClient? = nil) async -> ApprovalsInboxModel {
        let inbox = ApprovalsInboxModel(client: client ?? h.client, capabilities: Capabilities(role: role))
        inbox.approvals.policy = ChatHarness.fastPolicy
        await inbox.start()
        return inbox
    }

    /// Conversations titled `first`, `second` … each asking to run `touch <title>.txt`; returns their ids.
    func asking(_ h: ChatHarness, _ titles: [String]) async throws -> [String] {
        var ids: [String] = []
        for title in titles {
            let c = try await h.newConversation(title: title)
            _ = try await h.client.sendMessage(c.id, text: model(["bash touch \(title).txt"], ["say \(title) done"]))
            ids.append(c.id)
        }
        return ids
    }

    @Test("what waits in every conversation, newest first with its conversation's title; batch allow answers each and reports it")
    func batchAllow() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let inbox = await Self.inbox(h)
        #expect(inbox.emptyText?.title == "Nothing is waiting for you")
        let ids = try await asking(h, ["first", "second"])
        try await chatUntil(40, "both approvals") { inbox.rows.count == 2 && inbox.rows.allSatisfy { $0.conversationTitle != "a conversation" } }
        #expect(Set(inbox.rows.map(\.conversationTitle)) == ["first", "second"])
        #expect(inbox.rows[0].createdAt >= inbox.rows[1].createdAt)
        #expect(inbox.rows.map(\.summary).sorted() == ["touch first.txt", "touch second.txt"])
        #expect(inbox.countText == "2 waiting" && inbox.showsBatchBar)
        #expect(inbox.allSelected == false && !inbox.canDecideSelected && inbox.allowSelectedLabel == "Allow selected")
        inbox.toggleSelection(inbox.rows[0].id)
        #expect(inbox.allSelected == nil && inbox.allowSelectedLabel == "Allow 1")
        inbox.toggleSelectAll()
        #expect(inbox.allSelected == true && inbox.selectedCount == 2 && inbox.rows.allSatisfy(\.isSelected))
        let confirmation = try #require(inbox.batchConfirmation(.allow))
        #expect(confirmation.title == "Allow 2 tool calls?" && confirmation.confirmLabel == "Allow all" && !confirmation.asksForMessage)
        #expect(confirmation.lines.contains("Bash  touch first.txt · first"))
        #expect(await inbox.decideSelected(.allow))
        #expect(inbox.batchResult?.title == "2 of 2 allowed")
        #expect(inbox.batchResult?.lines.allSatisfy(\.applied) == true)
        #expect(inbox.rows.isEmpty && inbox.selection.isEmpty && !inbox.showsBatchBar)
        for (id, title) in zip(ids, ["first", "second"]) {
            try await eventually(30, "\(title) to finish") { try await h.client.messages(id).items.last?.text == "\(title) done" }
        }
        // With the decided ones shown.
        await inbox.setFilter(.all)
        #expect(inbox.rows.count == 2 && inbox.rows.allSatisfy { $0.stateText == "allowed" && !$0.isPending })
        inbox.suspend()
    }

    @Test("batch deny sends the message with each; one answered elsewhere meanwhile is reported with the server's reason")
    func batchDenyWithConflict() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let inbox = await Self.inbox(h)
        let ids = try await asking(h, ["alpha", "beta"])
        try await chatUntil(40, "both approvals") { inbox.rows.count == 2 && inbox.rows.allSatisfy { $0.conversationTitle != "a conversation" } }
        inbox.toggleSelectAll()
        // Away from the stream, the inbox does not hear that one of them is answered elsewhere.
        inbox.suspend()
        let alpha = try #require(inbox.rows.first { $0.conversationTitle == "alpha" })
        _ = try await h.client.decide(alpha.id, .allow)
        let confirmation = try #require(inbox.batchConfirmation(.deny))
        #expect(confirmation.title == "Deny 2 tool calls?" && confirmation.asksForMessage && confirmation.confirmLabel == "Deny all")
        #expect(await inbox.decideSelected(.deny, message: "  Not today.  "))
        let result = try #require(inbox.batchResult)
        #expect(result.title == "1 of 2 denied")
        #expect(result.lines.first { !$0.applied }?.text.hasPrefix("Bash touch alpha.txt — ") == true)
        #expect(result.lines.first { !$0.applied }?.text.contains("already") == true, "\(result.lines)")
        #expect(result.lines.first { $0.applied }?.text == "Bash touch beta.txt — denied")
        try await eventually(30, "beta's turn to end") { try await h.client.messages(ids[1]).items.last?.text == "beta done" }
        let beta = try await h.client.messages(ids[1]).items.flatMap(\.toolCalls).first
        #expect(beta?.output?.contains("Not today.") == true, "\(beta?.output ?? "nil")")
        await inbox.resume()
        await inbox.setFilter(.all)
        try await chatUntil(10, "both decided") { inbox.rows.count == 2 && inbox.rows.allSatisfy { !$0.isPending } }
        #expect(Set(inbox.rows.compactMap(\.stateText)) == ["allowed", "denied"])
        inbox.suspend()
    }

    @Test("one from its sheet: decided, or already answered elsewhere; new requests appear live")
    func single() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let inbox = await Self.inbox(h)
        _ = try await asking(h, ["one"])
        try await chatUntil(40, "the approval with its conversation's title") { inbox.rows.first?.conversationTitle == "one" }
        let row = try #require(inbox.rows.first)
        let sheet = try #require(inbox.sheet(for: row.id))
        #expect(sheet.title == "Allow Bash?" && sheet.meta(now: Date()).hasPrefix("In one · asked"))
        let outcome = await inbox.decide(row.id, .allowSession)
        guard case .decided(let approval) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(approval.decision == .allowSession)
        #expect(inbox.rows.isEmpty && inbox.notice == "Bash allowed for the session.")
        let again = await inbox.decide(row.id, .deny)
        #expect(again.message?.hasPrefix("Already answered:") == true)
        await inbox.setFilter(.all)
        #expect(inbox.rows.first?.stateText == "allowed (session)")
        inbox.suspend()
    }

    @Test("a viewer sees what waits but cannot select or decide")
    func viewer() async throws {
        let h = try await ChatHarness.start(apiKey: "chat-admin-key-0123456789")
        defer { Task { await h.stop() } }
        let (viewerClient, _) = try await h.client(role: .viewer)
        let inbox = await Self.inbox(h, role: .viewer, client: viewerClient)
        _ = try await asking(h, ["watched"])
        try await chatUntil(40, "the approval") { inbox.rows.count == 1 }
        #expect(!inbox.showsBatchBar)
        inbox.toggleSelectAll()
        inbox.toggleSelection(inbox.rows[0].id)
        #expect(inbox.selection.isEmpty && !inbox.canDecideSelected)
        #expect(await inbox.decideSelected(.allow) == false)
        #expect(inbox.sheet(for: inbox.rows[0].id)?.canDecide == false)
        #expect(inbox.emptyText == nil)
        inbox.suspend()
    }
}
