import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The chat models against the real server, whose conversations run the real Claude CLI.
@Suite("Conversation models against the real server", .serialized)
@MainActor
struct ConversationModelTests {
    /// A new conversation in the harness's `app` directory, loaded into a model that reconnects quickly.
    static func openModel(_ h: KitHarness) async throws -> ConversationModel {
        let model = ConversationModel(client: h.client, conversationID: try await h.newConversation())
        model.policy = KitHarness.fastPolicy
        await model.load()
        return model
    }

    @Test("a turn streams into the model: text assembled from chunks, then a stored message, newest last")
    func streamsATurn() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        try await until(5, "connected") { model.connection == .connected }
        #expect(await model.send("hello model") != nil)
        try await until(10, "the reply") { model.messages.last?.text == "Echo: hello model" && !model.isBusy }
        #expect(model.messages.map(\.role) == [.user, .assistant])
        #expect(model.streamingText.isEmpty)
        #expect(model.conversation?.title == "hello model")
        #expect(model.messages.last?.costUsd != nil)
        model.disconnect()
    }

    @Test("tool calls show with their results; a pending approval is answered from the model")
    func approvals() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        let approvals = ApprovalsModel(client: h.client)
        approvals.policy = KitHarness.fastPolicy
        await approvals.start()
        await model.send(TestSupport.model(["say Let me check.", "bash touch checked.txt && echo checked"], ["say All good."]))
        try await until(10, "the approval") { model.pendingApprovals.count == 1 && approvals.pending.count == 1 }
        #expect(model.status == .awaitingApproval)
        let approval = try #require(model.pendingApprovals.first)
        #expect(approval.toolName == "Bash")
        #expect(await model.decide(approval.id, .allow))
        try await until(10, "the turn to end") { !model.isBusy && model.messages.last?.text == "All good." }
        #expect(model.pendingApprovals.isEmpty)
        try await until(5, "the approvals badge to clear") { approvals.pending.isEmpty }
        let toolMessage = try #require(model.messages.first { !$0.toolCalls.isEmpty })
        #expect(toolMessage.text == "Let me check.")
        #expect(toolMessage.toolCalls.first?.output?.contains("checked") == true, "the command really ran")
        // Deciding it again is refused, with the server's reason.
        #expect(await model.decide(approval.id, .deny) == false)
        #expect(model.lastError?.contains("already decided") == true)
        approvals.stop()
        model.disconnect()
    }

    @Test("an overloaded model API shows in the status line with the attempt and the error, then clears")
    func retryingStatus() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        try await until(5, "connected") { model.connection == .connected }
        await model.send(TestSupport.model(["fail 529 2", "say recovered"]))
        try await until(20, "the retry") { model.status == .retrying }
        let line = try #require(model.statusLine)
        #expect(line.hasPrefix("Retrying the model API (attempt "), "\(line)")
        #expect(line.contains("HTTP 529"), "\(line)")
        #expect(model.retry?.maxRetries != nil)
        try await until(20, "the reply") { model.messages.last?.text == "recovered" && !model.isBusy }
        #expect(model.retry == nil && model.statusLine == nil)
        model.disconnect()
    }

    @Test("allow for this session: the approval names the rule, the model lists it with the agent's mode, and revoking removes it")
    func sessionRules() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        await model.send(TestSupport.model(["bash touch a.txt"], ["bash touch a.txt"], ["say ok"]))
        try await until(20, "the approval") { model.pendingApprovals.count == 1 }
        let approval = try #require(model.pendingApprovals.first)
        #expect(approval.sessionRule?.display == "Bash(touch a.txt)")
        #expect(await model.decide(approval.id, .allowSession))
        try await until(20, "the turn to end") { !model.isBusy && model.messages.last?.text == "ok" }
        #expect(model.pendingApprovals.isEmpty, "the second touch was allowed by the rule")
        #expect(model.sessionRules.map(\.rule.display) == ["Bash(touch a.txt)"])
        #expect(model.sessionRules.first?.uses == 1)
        #expect(model.permissionMode == "default")
        let rule = try #require(model.sessionRules.first)
        #expect(await model.revoke(rule.id))
        #expect(model.sessionRules.isEmpty)
        #expect(try await h.client.conversation(model.conversationID).sessionRules.isEmpty)
        #expect(await model.revoke(rule.id) == false)
        #expect(model.lastError?.contains("does not exist") == true)
        model.disconnect()
    }

    @Test("a turn the agent starts by itself shows as a note, then its reply")
    func agentTurn() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        await model.send(
            TestSupport.model(["say Starting a helper.", "agent helper :: #model\\nsay sub says 42"], ["say Helper started."], ["say The helper said 42."])
        )
        try await until(30, "the agent's own turn") { model.messages.last?.text == "The helper said 42." && !model.isBusy }
        let note = try #require(model.messages.first { $0.role == .system })
        #expect(note.text.contains("sub says 42"))
        #expect(model.messages.map(\.role).suffix(2) == [.system, .assistant])
        model.disconnect()
    }

    @Test("load earlier prepends older pages until the first message, each message once")
    func loadEarlier() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let c = try await h.client.createConversation(CreateConversationRequest(cwd: "app"))
        for i in 1...12 { _ = try await h.client.sendMessage(c.id, text: "m\(i)") }
        try await eventually(20, "12 turns to complete") {
            try await h.client.conversation(c.id).messageCount == 24
        }
        try await eventually(5, "the queue to drain") { try await h.client.conversation(c.id).status == .idle }
        let model = ConversationModel(client: h.client, conversationID: c.id)
        model.pageSize = 5
        await model.load()
        #expect(model.messages.count == 5)
        #expect(model.hasEarlier)
        while model.hasEarlier { await model.loadEarlier() }
        #expect(model.messages.count == 24)
        #expect(Set(model.messages.map(\.id)).count == 24)
        #expect(model.messages.filter { $0.role == .user }.map(\.text) == (1...12).map { "m\($0)" })
        model.disconnect()
    }

    @Test("the model resumes after a server restart without losing or repeating an event")
    func resumesAfterRestart() async throws {
        var h = try await KitHarness.start()
        let model = try await Self.openModel(h)
        await model.send("one")
        try await until(10, "the first reply") { model.messages.count == 2 && !model.isBusy }
        let before = model.lastEventID
        try await h.restart()
        defer { Task { await h.stop() } }
        try await until(10, "reconnected") { model.connection == .connected && model.lastEventID == before }
        await model.send("two")
        try await until(10, "the second reply") { model.messages.count == 4 && model.messages.last?.text == "Echo: two" }
        #expect(Set(model.messages.map(\.id)).count == 4)
        #expect(model.lastEventID > before)
        model.disconnect()
    }
}
