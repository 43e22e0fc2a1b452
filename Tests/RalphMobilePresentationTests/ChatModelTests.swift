import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The chat screen's model against the real server, whose conversations run the real Claude Code CLI (2.1.330) asking
/// `fake-anthropic` for each reply.
@Suite("Chat screen against the real server and the real Claude CLI", .serialized)
@MainActor
struct ChatModelTests {
    /// A chat of a new conversation, loaded and following its stream.
    static func open(_ h: ChatHarness, role: Role = .operator, client: RalphClient? = nil, me: String? = nil) async throws -> ChatModel {
        let conversation = try await h.newConversation()
        return try await open(h, conversation.id, role: role, client: client, me: me)
    }

    static func open(_ h: ChatHarness, _ id: String, role: Role = .operator, client: RalphClient? = nil, me: String? = nil) async throws -> ChatModel {
        let chat = ChatModel(client: client ?? h.client, conversationID: id, capabilities: Capabilities(role: role), me: me)
        chat.policy = ChatHarness.fastPolicy
        chat.autoReply.policy = ChatHarness.fastPolicy
        await chat.load()
        try await chatUntil(5, "the stream") { chat.connection == .connected }
        return chat
    }

    /// The tool calls of the last turn.
    static func tools(_ chat: ChatModel) -> [ChatToolCallItem] { chat.turns.last?.replies.flatMap(\.tools) ?? [] }

    func send(_ chat: ChatModel, _ text: String, mode: SendMode = .queue) async throws {
        chat.composer.text = text
        let sent = await chat.send(mode: mode)
        #expect(sent, "\(chat.composerError ?? "")")
    }

    @Test("a streamed reply becomes markdown blocks while it is written and after; the turn ends with its cost; a working line meanwhile")
    func streamsMarkdown() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        #expect(chat.emptyText == "No messages yet. Write the first one below.")
        #expect(chat.header.connectionText == "live")
        try await send(chat, model(["delay 40", #"say Here is the fix:\n\n```swift\nlet x = 1\n```\n\n- **one**\n- `two`"#]))
        #expect(chat.composer.text.isEmpty, "the composer is cleared once sent")
        var sawStreaming = false
        var sawWorking = false
        try await chatUntil(30, "the reply") {
            if chat.turns.last?.streaming?.blocks.isEmpty == false { sawStreaming = true }
            if chat.workingLine != nil { sawWorking = true }
            return chat.turns.last?.replies.last?.markdown.blocks.count == 3 && !chat.conversation.isBusy
        }
        #expect(sawStreaming, "the reply was shown as blocks while it streamed")
        #expect(sawWorking)
        let turn = try #require(chat.turns.last)
        #expect(turn.prompt?.text.hasPrefix("#model") == true)
        #expect(turn.streaming == nil && !turn.isRunning)
        let blocks = try #require(turn.replies.last).markdown.blocks.map(\.kind)
        #expect(blocks[0] == .paragraph(ChatInline("Here is the fix:")))
        #expect(blocks[1] == .code(language: "swift", text: "let x = 1", isClosed: true))
        guard case .list(false, let items) = blocks[2] else {
            Issue.record("not a list: \(blocks[2])")
            return
        }
        #expect(items.map(\.content.runs) == [[ChatInlineRun("one", style: .strong)], [ChatInlineRun("two", style: .code)]])
        #expect(turn.footer?.hasPrefix("$") == true && turn.footer?.contains("tokens") == true, "\(turn.footer ?? "")")
        #expect(chat.workingLine == nil)
        #expect(chat.queued.isEmpty && chat.emptyText == nil)
        chat.suspend()
    }

    @Test("a tool call asks: the sheet opens by itself with the command and the exact rule; allow runs it and its output shows")
    func allowFromTheSheet() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        try await send(chat, model(["say Let me check.", "bash touch checked.txt && echo checked"], ["say All good."]))
        try await chatUntil(30, "the approval sheet") { chat.approvalSheet != nil }
        let sheet = try #require(chat.approvalSheet)
        #expect(sheet.title == "Allow Bash?" && sheet.canDecide)
        #expect(sheet.prominent?.label == "Command" && sheet.prominent?.text == "touch checked.txt && echo checked")
        #expect(sheet.sessionButtonLabel == "Allow Bash(touch checked.txt && echo checked) for this session")
        #expect(chat.header.statusText == "needs approval")
        #expect(chat.workingLine == "Waiting for an approval")
        let waiting = try #require(Self.tools(chat).first)
        #expect(waiting.state == .awaitingApproval && waiting.summary == "touch checked.txt && echo checked")
        let outcome = await chat.decide(sheet.id, .allow)
        guard case .decided(let approval) = outcome else {
            Issue.record("not decided: \(outcome)")
            return
        }
        #expect(approval.state == .allowed)
        #expect(chat.approvalSheet == nil, "the sheet closes at once")
        #expect(chat.notice == "Bash allowed.")
        try await chatUntil(30, "the turn to end") { !chat.conversation.isBusy && chat.turns.last?.replies.last?.markdown.plainText == "All good." }
        let tool = try #require(Self.tools(chat).first)
        #expect(tool.state == .done && tool.outputPreview?.contains("checked") == true)
        #expect(tool.decision?.line == "Approval: allowed by local")
        #expect(FileManager.default.fileExists(atPath: h.root + "/app/checked.txt"), "the command really ran")
        // Answering it again is refused, with the server's reason.
        let again = await chat.decide(sheet.id, .deny)
        #expect(again.closesSheet && again.message?.hasPrefix("Already answered:") == true, "\(again)")
        chat.suspend()
    }

    @Test("deny with a message: the agent gets the message as the tool's error, and the call shows as denied")
    func denyWithMessage() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        try await send(chat, model(["bash touch nope.txt"], ["say Understood."]))
        try await chatUntil(30, "the approval sheet") { chat.approvalSheet != nil }
        let id = try #require(chat.approvalSheet?.id)
        let tooLong = await chat.decide(id, .deny, message: String(repeating: "x", count: 5000))
        #expect(tooLong == .invalid("The message is too long (at most 4096 bytes)."))
        #expect(chat.approvalSheet?.id == id, "a refused message keeps the sheet open")
        let outcome = await chat.decide(id, .deny, message: "  Not in this folder.  ")
        #expect(outcome.closesSheet)
        try await chatUntil(30, "the turn to end") { !chat.conversation.isBusy && chat.turns.last?.replies.last?.markdown.plainText == "Understood." }
        let tool = try #require(Self.tools(chat).first)
        #expect(tool.state == .denied && tool.isError)
        #expect(tool.output?.contains("Not in this folder.") == true, "\(tool.output ?? "nil")")
        #expect(tool.decision?.line == "Approval: denied by local — “Not in this folder.”")
        #expect(!FileManager.default.fileExists(atPath: h.root + "/app/nope.txt"))
        // The model API really received it as the tool's error result.
        let lastRequest = try #require(h.anthropic.requests().last)
        #expect(JSONWriter.string(.object(lastRequest)).contains("Not in this folder."))
        chat.suspend()
    }

    @Test("allow for this session: the panel lists the rule with its use, the same call then runs unasked, revoking asks again")
    func sessionRule() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        #expect(chat.permissions.summary == "default · 0 session rules")
        #expect(chat.permissions.versionText == "not started yet")
        try await send(chat, model(["bash touch a.txt"], ["bash touch a.txt"], ["say ok"]))
        try await chatUntil(30, "the approval sheet") { chat.approvalSheet != nil }
        let id = try #require(chat.approvalSheet?.id)
        #expect(await chat.decide(id, .allowSession).closesSheet)
        try await chatUntil(30, "the turn to end") { !chat.conversation.isBusy && chat.turns.last?.replies.last?.markdown.plainText == "ok" }
        try await chatUntil(10, "the rule's use to be read") { chat.permissions.rules.first?.uses == 1 }
        let panel = chat.permissions
        #expect(panel.rules.map(\.display) == ["Bash(touch a.txt)"])
        #expect(panel.rules.first?.grantedBy == "local")
        #expect(panel.summary == "default · 1 session rule")
        #expect(panel.versionText == RealClaude.pinnedVersion, "read once the CLI started")
        let tools = Self.tools(chat)
        #expect(tools.count == 2)
        #expect(tools[0].decision?.line == "Approval: allowed for the session by local")
        try await chatUntil(10, "the second call's decision") { Self.tools(chat).last?.decision?.byRule == true }
        #expect(Self.tools(chat).last?.decision?.line == "Approval: not asked — allowed by the session rule Bash(touch a.txt).")
        let rule = try #require(panel.rules.first)
        #expect(await chat.revoke(rule.id))
        #expect(chat.permissions.rules.isEmpty && chat.notice == "Revoked Bash(touch a.txt): it asks again next time.")
        // The same call asks again.
        try await send(chat, model(["bash touch a.txt"], ["say again"]))
        try await chatUntil(30, "a new approval") { chat.approvalSheet != nil }
        #expect(await chat.decide(try #require(chat.approvalSheet?.id), .allow).closesSheet)
        try await chatUntil(30, "the turn to end") { !chat.conversation.isBusy && chat.turns.last?.replies.last?.markdown.plainText == "again" }
        chat.suspend()
    }

    @Test("a dismissed sheet stays closed and its call waits on the transcript; Review opens it; answered elsewhere, it closes with a notice")
    func dismissReviewElsewhere() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        try await send(chat, model(["bash touch later.txt"], ["say done"]))
        try await chatUntil(30, "the approval sheet") { chat.approvalSheet != nil }
        let id = try #require(chat.approvalSheet?.id)
        chat.dismissApproval(id)
        #expect(chat.approvalSheet == nil)
        let tool = try #require(Self.tools(chat).first)
        #expect(tool.state == .awaitingApproval && tool.pendingApprovalID == id)
        chat.reviewApproval(id)
        #expect(chat.approvalSheet?.id == id)
        // Someone else answers it.
        _ = try await h.client.decide(id, .allow)
        try await chatUntil(10, "the sheet to close") { chat.approvalSheet == nil }
        #expect(chat.notice == "Bash was allowed by local elsewhere.")
        try await chatUntil(30, "the turn to end") { !chat.conversation.isBusy && chat.turns.last?.replies.last?.markdown.plainText == "done" }
        chat.suspend()
    }

    @Test("send queues behind a running turn, steer goes next, interrupt stops the turn; the queue shows until each turn starts")
    func queueSteerInterrupt() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        #expect(!chat.sendOptions.showsSteer && !chat.sendOptions.showsInterrupt)
        try await send(chat, model(["wait 4000", "say slow one"]))
        try await chatUntil(20, "the turn to run") { chat.conversation.isBusy && chat.turns.count == 1 }
        #expect(chat.sendOptions.showsSteer && chat.sendOptions.showsInterrupt && chat.sendOptions.busyHint != nil)
        try await send(chat, "queued message")
        #expect(chat.queued.map(\.label) == ["queued #1"])
        #expect(chat.composerNote == "Queued as #1: it is sent when the running turn ends.")
        try await send(chat, "steered message", mode: .steer)
        #expect(chat.queued.last?.mode == .steer)
        try await chatUntil(40, "both messages answered") {
            let replies = chat.turns.flatMap(\.replies).map(\.markdown.plainText)
            return replies.contains("Echo: steered message") && replies.contains("Echo: queued message") && !chat.conversation.isBusy
        }
        #expect(chat.queued.isEmpty && chat.composerNote == nil)
        let prompts = chat.turns.compactMap(\.prompt?.text)
        #expect(prompts.firstIndex(of: "steered message")! < prompts.firstIndex(of: "queued message")!, "steer goes before the queue: \(prompts)")
        #expect(!chat.turns.flatMap(\.replies).contains { $0.markdown.plainText == "slow one" }, "the steered-over turn was interrupted")
        // Interrupt.
        try await send(chat, model(["wait 6000", "say never"]))
        try await chatUntil(20, "the turn to run") { chat.conversation.isBusy }
        #expect(await chat.interrupt())
        #expect(chat.notice == "Interrupt sent.")
        try await chatUntil(20, "the turn to stop") { !chat.conversation.isBusy }
        #expect(await chat.interrupt() == false)
        #expect(chat.notice?.hasPrefix("Nothing to interrupt:") == true, "\(chat.notice ?? "")")
        chat.suspend()
    }

    @Test("the composer refuses empty text without a request, and a viewer cannot send at all")
    func composerRules() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        chat.composer.text = "  \n"
        #expect(await chat.send() == false)
        #expect(chat.composerError == "Write a message first.")
        #expect(try await h.client.conversation(chat.conversationID).messageCount == 0)
        chat.suspend()
        let viewer = try await Self.open(h, chat.conversationID, role: .viewer)
        viewer.composer.text = "hello"
        #expect(viewer.sendOptions.unavailableReason == "You can read this conversation; sending messages needs an operator key.")
        #expect(await viewer.send() == false)
        #expect(viewer.actions.isEmpty)
        #expect(try await h.client.conversation(chat.conversationID).messageCount == 0)
        viewer.suspend()
    }

    @Test("an overloaded model API shows in the working line and the header, then clears")
    func retrying() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        try await send(chat, model(["fail 529 2", "say recovered"]))
        try await chatUntil(30, "the retry") { chat.conversation.status == .retrying }
        #expect(chat.header.statusText == "retrying" && chat.workingTone == .warning)
        #expect(chat.workingLine?.hasPrefix("Retrying the model API (attempt ") == true && chat.workingLine?.contains("HTTP 529") == true)
        try await chatUntil(30, "the reply") { chat.turns.last?.replies.last?.markdown.plainText == "recovered" && !chat.conversation.isBusy }
        #expect(chat.workingLine == nil && chat.header.statusText == "idle")
        chat.suspend()
    }

    @Test("a silent turn shows as stalled in the working line and the header, and interrupting it ends it")
    func stalled() async throws {
        let h = try await ChatHarness.start(stallAfter: 1)
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        try await send(chat, model(["wait 8000", "say too late"]))
        try await chatUntil(20, "the stall") { chat.conversation.status == .stalled }
        #expect(chat.header.statusText == "stalled" && chat.workingTone == .warning)
        #expect(chat.workingLine?.hasPrefix("No output for ") == true && chat.workingLine?.hasSuffix("you can interrupt it") == true, "\(chat.workingLine ?? "nil")")
        #expect(chat.sendOptions.showsInterrupt)
        #expect(await chat.interrupt())
        try await chatUntil(20, "the turn to end") { !chat.conversation.isBusy }
        #expect(chat.workingLine == nil)
        chat.suspend()
    }

    @Test("load earlier prepends older turns page by page, each once")
    func loadEarlier() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let c = try await h.newConversation()
        for i in 1...6 { _ = try await h.client.sendMessage(c.id, text: "m\(i)") }
        try await eventually(40, "6 turns to complete") { try await h.client.conversation(c.id).messageCount == 12 }
        try await eventually(10, "idle") { try await h.client.conversation(c.id).status == .idle }
        let chat = ChatModel(client: h.client, conversationID: c.id, capabilities: Capabilities(role: .operator))
        chat.conversation.pageSize = 4
        await chat.load()
        #expect(chat.turns.count == 2 && chat.canLoadEarlier)
        while chat.canLoadEarlier { await chat.loadEarlier() }
        #expect(chat.turns.map { $0.prompt?.text } == (1...6).map { "m\($0)" })
        #expect(chat.turns.allSatisfy { $0.replies.count == 1 && $0.footer != nil })
        chat.suspend()
    }

    @Test("suspended in the background, the chat resumes after its last event: what happened meanwhile shows, nothing twice")
    func suspendResume() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        try await send(chat, "one")
        try await chatUntil(20, "the first reply") { chat.turns.last?.replies.last?.markdown.plainText == "Echo: one" && !chat.conversation.isBusy }
        let before = chat.conversation.lastEventID
        chat.suspend()
        #expect(chat.connection == .disconnected && !chat.isFollowing)
        _ = try await h.client.sendMessage(chat.conversationID, text: "two")
        try await eventually(20, "the second turn to end on the server") { try await h.client.conversation(chat.conversationID).messageCount == 4 }
        try await eventually(10, "idle") { try await h.client.conversation(chat.conversationID).status == .idle }
        try await Task.sleep(for: .milliseconds(200))
        #expect(chat.conversation.messages.count == 2, "nothing arrives while suspended")
        await chat.resume()
        try await chatUntil(10, "the missed turn") { chat.turns.last?.replies.last?.markdown.plainText == "Echo: two" }
        #expect(chat.connection == .connected)
        #expect(chat.conversation.messages.count == 4 && Set(chat.conversation.messages.map(\.id)).count == 4)
        #expect(chat.turns.map { $0.prompt?.text } == ["one", "two"])
        #expect(chat.conversation.lastEventID > before)
        chat.suspend()
    }

    @Test("pin and rename from the chat; deleted elsewhere, the chat says so and offers nothing more")
    func actionsAndDeletion() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        #expect(chat.actions == [.pin, .rename, .archive, .delete])
        #expect(await chat.perform(.pin))
        #expect(chat.header.details.contains("★ pinned") && chat.actions.first == .unpin && chat.notice == "Pinned")
        #expect(await chat.rename("  ") == "Enter a title.")
        #expect(await chat.rename("Clock work") == nil)
        try await chatUntil(10, "the new title") { chat.header.title == "Clock work" }
        #expect(chat.deleteConfirmation?.message.hasPrefix("“Clock work”") == true)
        try await h.client.deleteConversation(chat.conversationID)
        try await chatUntil(10, "the deletion to show") { chat.isDeleted }
        #expect(chat.sendOptions.unavailableReason == "This conversation was deleted.")
        #expect(chat.actions.isEmpty && chat.approvalSheet == nil)
    }

    @Test("a viewer sees pending approvals on their tool call but no sheet opens by itself; Review shows it without buttons")
    func viewerApprovals() async throws {
        let h = try await ChatHarness.start(apiKey: "chat-admin-key-0123456789")
        defer { Task { await h.stop() } }
        let conversation = try await h.newConversation()
        let (viewerClient, viewerID) = try await h.client(role: .viewer)
        let viewer = try await Self.open(h, conversation.id, role: .viewer, client: viewerClient, me: viewerID)
        _ = try await h.client.sendMessage(conversation.id, text: model(["bash touch v.txt"], ["say fine"]))
        try await chatUntil(30, "the pending call") { Self.tools(viewer).first?.state == .awaitingApproval }
        #expect(viewer.approvalSheet == nil)
        let id = try #require(viewer.conversation.pendingApprovals.first?.id)
        viewer.reviewApproval(id)
        let sheet = try #require(viewer.approvalSheet)
        #expect(!sheet.canDecide && sheet.title == "Bash" && sheet.viewerNote != nil)
        let refused = await viewer.decide(id, .allow)
        #expect(!refused.closesSheet && refused.message?.contains("not allowed") == true, "\(refused)")
        #expect(!viewer.permissions.canRevoke && viewer.autoReplyBar.controls.isEmpty)
        _ = try await h.client.decide(id, .allow)
        try await chatUntil(30, "the turn to end") { viewer.turns.last?.replies.last?.markdown.plainText == "fine" }
        #expect(viewer.notice?.hasSuffix("elsewhere.") == true)
        viewer.suspend()
    }

    @Test("auto-reply progress arrives on the chat's own stream; the status bar pauses and stops the loop")
    func autoReplyBar() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let chat = try await Self.open(h)
        #expect(!chat.autoReplyBar.isVisible)
        var settings = AutoReplySettings(mode: .messageBased, maxIterations: 10, maxMessages: 2)
        settings.nextPrompt = NextPrompt(strategy: .fixed, text: "#model\nsay Cycle {turn} done.")
        _ = try await h.client.startAutoReply(chat.conversationID, settings: settings)
        try await chatUntil(40, "the loop to stop at its limit") { chat.autoReplyBar.reasonText?.hasPrefix("Stopped: message limit reached") == true }
        #expect(chat.autoReplyBar.countsText?.hasSuffix("2/2 sent") == true, "\(chat.autoReplyBar.countsText ?? "nil")")
        #expect(chat.autoReply.fractionDone == 1)
        #expect(!chat.autoReply.isFollowing, "no second connection: the chat's stream carries the progress")
        // A loop that waits for a go before each prompt: pause, then stop from the bar.
        settings = AutoReplySettings(mode: .untilCompletion, maxIterations: 10, requireConfirmation: true)
        _ = try await h.client.setAutoReply(chat.conversationID, settings)
        try await send(chat, "start")
        _ = try await h.client.startAutoReply(chat.conversationID)
        try await chatUntil(30, "the loop to wait for a go") { chat.autoReplyBar.controls.first == .resume(sendsPrompt: true) }
        #expect(chat.autoReplyBar.pendingPrompt != nil)
        #expect(await chat.perform(.stop))
        try await chatUntil(10, "stopped") { chat.autoReplyBar.reasonText == "Stopped: stopped by a person" }
        #expect(chat.autoReplyBar.controls.isEmpty)
        chat.suspend()
    }
}
