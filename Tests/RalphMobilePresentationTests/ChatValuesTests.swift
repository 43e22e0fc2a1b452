import Foundation
import RalphAPI
import RalphMobileKit
import Testing

@testable import RalphMobilePresentation

/// The values the chat screens show, built from fixtures: no server needed.
@Suite("Chat values: formatting, turns, tool calls, composer, rows, permissions")
struct ChatValuesTests {
    let now = ChatFixtures.now

    @Test("times, money, tokens, durations and paths read the same on every device")
    func format() {
        func at(_ seconds: Double) -> String { Timestamp.format(now.addingTimeInterval(-seconds)) }
        #expect(ChatFormat.relativeTime(at(12), now: now) == "12s ago")
        #expect(ChatFormat.relativeTime(at(-30), now: now) == "0s ago", "a clock ahead of ours is now")
        #expect(ChatFormat.relativeTime(at(300), now: now) == "5m ago")
        #expect(ChatFormat.relativeTime(at(3 * 3600 + 5), now: now) == "3h ago")
        #expect(ChatFormat.relativeTime(at(2 * 86_400), now: now) == "2d ago")
        #expect(ChatFormat.relativeTime("yesterday", now: now) == "—")
        #expect(ChatFormat.asked(at(3), now: now) == "asked just now")
        #expect(ChatFormat.asked(at(120), now: now) == "asked 2m ago")
        #expect(ChatFormat.cost(0.0042) == "$0.0042" && ChatFormat.cost(1.254) == "$1.25" && ChatFormat.cost(nil) == nil)
        #expect(ChatFormat.tokens(TokenUsage(inputTokens: 1200, outputTokens: 34, cacheReadInputTokens: 10_000)) == "11,234 tokens")
        #expect(ChatFormat.tokens(TokenUsage()) == nil)
        #expect(ChatFormat.grouped(1_234_567) == "1,234,567" && ChatFormat.grouped(-1000) == "-1,000" && ChatFormat.grouped(999) == "999")
        #expect(ChatFormat.duration(42) == "42s" && ChatFormat.duration(65) == "1m 05s" && ChatFormat.duration(7380) == "2h 03m")
        #expect(ChatFormat.shortPath("/Users/ada/work/app/api") == "…/app/api" && ChatFormat.shortPath("/app") == "/app")
        #expect(ChatFormat.firstLine("\n  \n  first line  \nsecond") == "first line")
        #expect(ChatFormat.truncated("abcdef", to: 4) == "abc…")
        #expect(ChatFormat.prettyJSON(["b": 1, "a": ["x", true], "e": [:]]) == "{\n  \"b\": 1,\n  \"a\": [\n    \"x\",\n    true\n  ],\n  \"e\": {}\n}")
        #expect(ChatFormat.prettyJSON("just text") == "just text")
    }

    @Test("messages are grouped into turns: the prompt, each reply segment with its tools, the streaming text, the cost")
    func turns() {
        let turns = ChatFixtures.turns
        #expect(turns.map(\.id) == ["t1", "t2", "t3"])
        #expect(turns[0].prompt?.text == "Why does `testReport` fail at night?")
        #expect(turns[0].prompt?.isAgentNote == false)
        #expect(turns[0].replies.map(\.id) == ["m2", "m3"])
        #expect(turns[0].replies[0].tools.map(\.name) == ["Read", "Bash"])
        #expect(turns[0].footer == "$0.01 · 1,540 tokens")
        #expect(turns[0].isRunning == false && turns[0].streaming == nil)
        #expect(turns[0].accessibilityHeading == "You: Why does `testReport` fail at night?")
        // The reply's markdown has its heading, list and code block.
        let kinds = turns[0].replies[1].markdown.blocks.map(\.kind)
        #expect(kinds.contains(.code(language: "swift", text: "let now = Date()\nlet report = Report(at: now)", isClosed: true)))
        #expect(kinds.contains(.heading(level: 2, ChatInline("The fix"))))
        // A turn the agent started by itself opens with its note.
        #expect(turns[1].prompt?.isAgentNote == true)
        #expect(turns[1].accessibilityHeading?.hasPrefix("Claude went on by itself: A background task") == true)
        // The running turn: no cost yet, its streaming text as blocks (the open code fence as open code).
        #expect(turns[2].isRunning && turns[2].footer == nil)
        #expect(turns[2].streaming?.blocks.last?.kind == .code(language: "sh", text: "swift test --filter Report", isClosed: false))
        #expect(turns[2].replies[0].tools.first?.state == .awaitingApproval)
        #expect(turns[2].replies[0].tools.first?.pendingApprovalID == "a1")
    }

    @Test("streaming text of a turn with no message yet gets its own turn; an error goes on its turn or the last one")
    func turnEdges() {
        let user = ChatMessage(id: "u", conversationId: "c", turnId: "t1", role: .user, text: "hi", createdAt: Timestamp.now())
        var input = ChatTranscript.Input(messages: [user], streamingText: "Hel", currentTurnID: "t2", isBusy: true)
        var turns = ChatTranscript.turns(input)
        #expect(turns.map(\.id) == ["t1", "t2"])
        #expect(turns[1].prompt == nil && turns[1].streaming?.plainText == "Hel" && turns[1].isRunning)
        input = ChatTranscript.Input(messages: [user], agentError: ChatErrorEvent(turnId: "t1", message: "the CLI exited (status 1)", recoverable: true))
        turns = ChatTranscript.turns(input)
        #expect(turns[0].error?.title == "The turn failed: the CLI exited (status 1)")
        #expect(turns[0].error?.hint == "Send another message to carry on (the session is resumed).")
        input.agentError = ChatErrorEvent(turnId: nil, message: "boom", recoverable: false)
        turns = ChatTranscript.turns(input)
        #expect(turns.last?.error?.message == "boom" && turns.last?.error?.hint == nil)
        // A message of no turn is a turn of its own.
        let lone = ChatMessage(id: "x", conversationId: "c", turnId: nil, role: .assistant, text: "note", createdAt: Timestamp.now())
        #expect(ChatTranscript.turns(ChatTranscript.Input(messages: [lone])).map(\.id) == ["message-x"])
        // A long agent note is collapsed to its start.
        let note = ChatPrompt(id: "n", text: String(repeating: "w", count: 500), isAgentNote: true, createdAt: "")
        #expect(note.isCollapsed && note.preview.count == ChatPrompt.notePreviewLimit + 1)
    }

    @Test("tool calls: a one-line summary, a state from output, approval and turn, long output collapsed, the decision line")
    func toolCalls() {
        func item(_ call: ToolCall, running: Bool = false, pending: String? = nil, decision: ChatToolDecision? = nil) -> ChatToolCallItem {
            ChatToolCallItem(call, turnRunning: running, pendingApprovalID: pending, decision: decision)
        }
        #expect(ChatToolCallItem.summary(name: "Bash", input: ["command": "swift test\n--verbose", "description": "x"]) == "swift test")
        #expect(ChatToolCallItem.summary(name: "Grep", input: ["pattern": "TODO", "path": "Sources"]) == "TODO  in Sources")
        #expect(ChatToolCallItem.summary(name: "X", input: ["n": 1, "label": "  first string  "]) == "first string")
        #expect(ChatToolCallItem.summary(name: "X", input: ["n": 1]) == #"{"n":1}"#)
        #expect(ChatToolCallItem.summary(name: "X", input: .null) == "")
        let bash = ToolCall(toolUseId: "t", name: "Bash", input: ["command": "ls"])
        #expect(item(bash, running: true).state == .running)
        #expect(item(bash).state == .noResult && item(bash).stateText == "no result")
        #expect(item(bash, running: true, pending: "a1").state == .awaitingApproval)
        #expect(item(bash, decision: ChatToolDecision(decision: "deny", decidedBy: "k1", message: "no")).state == .denied)
        #expect(item(bash, decision: ChatToolDecision(decision: "cancelled", decidedBy: "system", message: nil)).state == .cancelled)
        var done = bash
        done.output = String(repeating: "x", count: 5000)
        done.isError = false
        let long = item(done, pending: "a1")
        #expect(long.state == .done && long.pendingApprovalID == nil)
        #expect(long.isOutputLong && long.outputPreview?.count == ChatToolCallItem.previewLimit + 2)
        #expect(long.showAllLabel == "Show all 5,000 characters")
        done.output = ""
        #expect(item(done).outputPreview == "(empty)" && !item(done).isOutputLong && item(done).showAllLabel == nil)
        done.isError = true
        done.output = "denied: not there"
        #expect(item(done).state == .failed && item(done).outputTitle == "Error")
        #expect(item(done, decision: ChatToolDecision(decision: "deny", decidedBy: "k1", message: "not there")).state == .denied)
        #expect(item(bash, running: true).accessibilityLabel == "Bash, ls, running")
        // Decision lines.
        #expect(ChatToolDecision(decision: "allow_session", decidedBy: "k_1", message: nil).line == "Approval: allowed for the session by k_1")
        #expect(ChatToolDecision(decision: "deny", decidedBy: "local", message: "not now").line == "Approval: denied by local — “not now”")
        #expect(ChatToolDecision(decision: "cancelled", decidedBy: "system", message: nil).line == "Approval: cancelled (its turn ended)")
        #expect(ChatToolDecision(decision: "allow", decidedBy: "rule r1", message: "allowed by the session rule Bash(ls)").line == "Approval: not asked — allowed by the session rule Bash(ls).")
        #expect(ChatToolDecision(ChatFixtures.deniedApproval) == ChatToolDecision(decision: "deny", decidedBy: "k_ops", message: "Not the build folder"))
        #expect(ChatToolDecision(ChatFixtures.approval) == nil)
    }

    @Test("the composer refuses empty, too long and NUL text, and offers steer and interrupt only while a turn runs")
    func composer() {
        #expect(ChatComposer(text: " \n ").problem == "Write a message first.")
        #expect(ChatComposer(text: String(repeating: "é", count: 50_001)).problem == "The message is too long: at most 100,000 bytes (it has 100,002).")
        #expect(ChatComposer(text: "a\u{0}b").problem == "The message contains a NUL character.")
        #expect(ChatComposer(text: "Run the tests").problem == nil)
        let idle = ChatSendOptions(canChat: true, isBusy: false, isDeleted: false)
        #expect(idle.canSend && !idle.showsSteer && !idle.showsInterrupt && idle.busyHint == nil && idle.unavailableReason == nil)
        let busy = ChatSendOptions(canChat: true, isBusy: true, isDeleted: false)
        #expect(busy.canSend && busy.showsSteer && busy.showsInterrupt && busy.busyHint != nil)
        let viewer = ChatSendOptions(canChat: false, isBusy: true, isDeleted: false)
        #expect(!viewer.canSend && !viewer.showsSteer && !viewer.showsInterrupt)
        #expect(viewer.unavailableReason == "You can read this conversation; sending messages needs an operator key.")
        let deleted = ChatSendOptions(canChat: true, isBusy: false, isDeleted: true)
        #expect(!deleted.canSend && deleted.unavailableReason == "This conversation was deleted.")
        #expect(ChatQueuedMessage(turnID: "t", text: "x", mode: .queue, position: 2).label == "queued #2")
        #expect(ChatQueuedMessage(turnID: "t", text: "x", mode: .queue, position: 2).note == "Queued as #2: it is sent when the running turn ends.")
        #expect(ChatQueuedMessage(turnID: "t", text: "x", mode: .steer, position: 0).label == "steering…")
        #expect(ChatQueuedMessage(turnID: "t", text: "x", mode: .queue, position: 0).note == nil)
    }

    @MainActor
    @Test("list rows: title fallback, the approvals badge instead of 'needs approval', the retry line, VoiceOver sentence")
    func rows() {
        let rows = ChatFixtures.rows
        #expect(rows[0].isPinned && rows[0].statusText == "idle" && rows[0].approvalsText == nil)
        #expect(rows[1].statusText == nil && rows[1].approvalsText == "2 approvals" && rows[1].statusTone == .attention)
        #expect(rows[2].title == "Untitled conversation")
        #expect(rows[2].retryText == "Retrying the model API (attempt 3 of 10, HTTP 529): overloaded")
        #expect(rows[2].shortPath == "…/work/site" && rows[2].path == "/Users/ada/work/site")
        #expect(rows[1].activity(now: now) == "20s ago")
        #expect(rows[0].accessibilityLabel(now: now) == "Pinned. Release checklist, Claude Code, idle, All release steps are done; the tag is pushed., …/work/app, 2h ago")
        #expect(rows[3].accessibilityLabel(now: now).contains("Old spike, archived"))
    }

    @Test("conversation actions follow pin and archive state, only for those who may chat; delete asks first")
    func actions() {
        let pinned = ChatFixtures.conversations[0]
        let archived = ChatFixtures.conversations[3]
        #expect(ConversationAction.available(for: pinned, capabilities: Capabilities(role: .operator)) == [.unpin, .rename, .archive, .delete])
        #expect(ConversationAction.available(for: archived, capabilities: Capabilities(role: .operator)) == [.pin, .rename, .unarchive, .delete])
        #expect(ConversationAction.available(for: pinned, capabilities: Capabilities(role: .viewer)).isEmpty)
        let confirm = ConversationAction.deleteConfirmation(pinned)
        #expect(confirm.isDestructive && confirm.confirm == "Delete" && confirm.message.hasPrefix("“Release checklist” and all its messages"))
        #expect(ConversationAction.renameProblem("  ") == "Enter a title.")
        #expect(ConversationAction.renameProblem(String(repeating: "t", count: 201)) == "At most 200 characters.")
        #expect(ConversationAction.renameProblem("New name") == nil)
    }

    @Test("the permissions panel: the reported mode, what it was created with, the version, rules by you or others with their use")
    func permissions() {
        let panel = ChatFixtures.permissionsPanel
        #expect(panel.summary == "acceptEdits · 2 session rules")
        #expect(panel.modeText == "acceptEdits — file edits and simple file commands run without asking (created with default)")
        #expect(panel.versionText == "2.1.330")
        #expect(panel.rules.map(\.grantedBy) == ["you", "k_ops"])
        #expect(panel.rules[0].usesText(now: now) == "used 3 times, last 1m ago")
        #expect(panel.rules[1].usesText(now: now) == "not used yet")
        #expect(panel.rules[0].detail(now: now) == "granted by you 30m ago · used 3 times, last 1m ago")
        #expect(panel.rules[0].revokeAccessibilityLabel == "Revoke Bash(swift test)")
        #expect(panel.footnote == nil)
        let viewer = ChatPermissionsPanel(agentMode: nil, createdMode: nil, agentVersion: nil, rules: [], me: nil, canRevoke: false)
        #expect(viewer.mode == "default" && viewer.createdWith == nil && viewer.versionText == "not started yet")
        #expect(viewer.footnote?.hasPrefix("None.") == true)
        let readOnly = ChatPermissionsPanel(agentMode: "plan", createdMode: "plan", agentVersion: nil, rules: ChatFixtures.sessionRules, me: nil, canRevoke: false)
        #expect(readOnly.createdWith == nil && readOnly.footnote == "An operator can revoke these." && readOnly.rules[0].grantedBy == "k_me")
    }

    @Test("the header: details, status, queue, cost and connection")
    func header() {
        let header = ChatFixtures.header
        #expect(header.title == "Fix the flaky tests")
        #expect(header.details == ["…/app/api", "model sonnet"])
        #expect(header.statusText == "needs approval" && header.statusTone == .attention)
        #expect(header.queuedText == "1 queued" && header.costText == "total $0.08")
        #expect(header.connectionText == "live" && header.reconnectsText == nil)
        #expect(header.accessibilityLabel == "Fix the flaky tests, Claude Code, needs approval, 1 queued, total $0.08, live")
        let offline = ChatHeader(conversation: ChatFixtures.conversations[0], info: nil, status: .idle, connection: .reconnecting(attempt: 2), reconnects: 2)
        #expect(offline.details == ["…/work/app", "★ pinned"] && offline.connectionText == "reconnecting (attempt 2)" && offline.reconnectsText == "2 reconnects")
        #expect(ConversationWords.connection(.error("not found")) == "stopped: not found")
    }
}
