import Foundation
import RalphAPI
import Synchronization
import Testing

@testable import AgentRunner

/// The conversation driver as a value: each rule of the design, with made-up agent output and dates.
@Suite("Conversation machine")
struct ConversationMachineTests {
    typealias Action = ConversationMachine.Action

    final class Counter: Sendable {
        let value = Mutex(0)
        func next(_ prefix: String) -> String { value.withLock { $0 += 1; return "\(prefix)\($0)" } }
    }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func machine(session: String? = nil, configure: (inout ConversationMachine.Configuration) -> Void = { _ in }) -> ConversationMachine {
        let conversation = Conversation(
            id: "c1", title: "", cwd: "/w", backend: "claude", createdAt: "2027-01-15T08:00:00.000Z", updatedAt: "2027-01-15T08:00:00.000Z",
            lastActivityAt: "2027-01-15T08:00:00.000Z", sessionId: session
        )
        var configuration = ConversationMachine.Configuration()
        configuration.stallAfter = 60
        configuration.idleStopAfter = 120
        configuration.interruptGrace = 5
        configure(&configuration)
        let counter = Counter()
        return ConversationMachine(conversation: conversation, configuration: configuration, makeID: { counter.next($0) })
    }

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    static func events(_ actions: [Action]) -> [ChatEvent] {
        actions.compactMap { if case .emit(let e) = $0 { e } else { nil } }
    }

    static func commands(_ actions: [Action]) -> [AgentCommand] {
        actions.compactMap { if case .send(let c) = $0 { c } else { nil } }
    }

    static func names(_ actions: [Action]) -> [String] { events(actions).map(\.name) }

    /// The texts of the user lines sent to the agent.
    static func userTexts(_ actions: [Action]) -> [String] {
        commands(actions).compactMap { if case .user(let text, _) = $0 { text } else { nil } }
    }

    /// A machine with a started process and a running turn "hello".
    static func running(session: String? = "s1") -> ConversationMachine {
        var m = machine(session: session)
        _ = m.send(text: "hello", mode: .queue, now: at(0))
        _ = m.processStarted(now: at(0))
        return m
    }

    static func result(cost: Double = 0.02, isError: Bool = false, errors: [String] = []) -> AgentEvent {
        .result(
            AgentTurnResult(
                subtype: isError ? "error_during_execution" : "success", isError: isError, sessionID: "s1", durationMs: 1200, totalCostUSD: cost,
                usage: TokenUsage(inputTokens: 10, outputTokens: 5), errors: errors, stopReason: isError ? nil : "end_turn"
            )
        )
    }

    @Test("a message to an idle conversation starts the agent, then the turn")
    func firstMessageSpawnsThenStarts() {
        var m = Self.machine()
        let (response, actions) = m.send(text: "hello", mode: .queue, now: Self.at(0))
        #expect(actions.contains(.spawn(resumeSessionID: nil)))
        #expect(Self.commands(actions).isEmpty)
        #expect(response.queuedPosition == 0, "nothing runs before it")
        let started = m.processStarted(now: Self.at(0.1))
        #expect(Self.names(started) == ["turn_start", "status"])
        #expect(Self.userTexts(started) == ["hello"])
        #expect(m.conversation.status == .running)
        #expect(m.conversation.processRunning)
    }

    @Test("a conversation with a session resumes it")
    func resumesItsSession() {
        var m = Self.machine(session: "abc")
        let (_, actions) = m.send(text: "again", mode: .queue, now: Self.at(0))
        #expect(actions.contains(.spawn(resumeSessionID: "abc")))
    }

    @Test("deltas stream as chunks; the complete text block adds only what the deltas missed")
    func deltasAreNotRepeated() {
        var m = Self.running()
        var chunks: [String] = []
        for output: AgentEvent in [
            .textDelta(text: "Let me ", parentToolUseID: nil), .textDelta(text: "look", parentToolUseID: nil),
            .assistantText(messageID: "msg_1", text: "Let me look.", parentToolUseID: nil),
            .assistantText(messageID: "msg_1", text: " Done.", parentToolUseID: nil),
        ] {
            for case .chunk(let c) in Self.events(m.handle(output, now: Self.at(1))) { chunks.append(c.text) }
        }
        #expect(chunks == ["Let me ", "look", ".", " Done."])
        let end = m.handle(Self.result(), now: Self.at(2))
        let saved = end.compactMap { if case .save(.message(let msg)) = $0, msg.role == .assistant { msg } else { nil } }
        #expect(saved.first?.text == "Let me look. Done.")
    }

    @Test("a tool call closes the text segment, starts a tool and ends it with the real result")
    func toolCallLifecycle() {
        var m = Self.running()
        _ = m.handle(.textDelta(text: "Checking.", parentToolUseID: nil), now: Self.at(1))
        let use = m.handle(.toolUse(messageID: "msg_1", toolUseID: "toolu_1", name: "Bash", input: ["command": "ls"], parentToolUseID: nil), now: Self.at(2))
        #expect(Self.names(use) == ["segment_end", "tool_start"])
        guard case .segmentEnd(let segment) = Self.events(use)[0], case .toolStart(let start) = Self.events(use)[1] else {
            Issue.record("unexpected events")
            return
        }
        #expect(start.messageId == segment.messageId)
        let end = m.handle(.toolResults([AgentToolResult(toolUseID: "toolu_1", output: "a\nb", isError: false)], parentToolUseID: nil), now: Self.at(3))
        guard case .toolEnd(let toolEnd) = Self.events(end).first else {
            Issue.record("no tool_end")
            return
        }
        #expect(toolEnd.output == "a\nb")
        #expect(toolEnd.isError == false)
        let message = end.compactMap { if case .save(.message(let msg)) = $0 { msg } else { nil } }.last
        #expect(message?.toolCalls.first?.output == "a\nb")
        #expect(message?.text == "Checking.")
    }

    @Test("a tool before any text gets an empty assistant message to belong to")
    func toolWithoutText() {
        var m = Self.running()
        let use = m.handle(.toolUse(messageID: nil, toolUseID: "toolu_1", name: "Read", input: [:], parentToolUseID: nil), now: Self.at(1))
        #expect(Self.names(use) == ["tool_start"])
        let saved = use.compactMap { if case .save(.message(let msg)) = $0 { msg } else { nil } }
        #expect(saved.count == 1 && saved[0].text.isEmpty && saved[0].toolCalls.count == 1)
    }

    @Test("the result completes the turn with cost and usage; a new conversation gets a title first")
    func completeAfterTitle() {
        var m = Self.running()
        _ = m.handle(.textDelta(text: "Hi!", parentToolUseID: nil), now: Self.at(1))
        let end = m.handle(Self.result(cost: 0.05), now: Self.at(2))
        #expect(Self.names(end) == ["segment_end", "title_update", "complete", "status"])
        guard case .complete(let complete) = Self.events(end)[2] else { return }
        #expect(complete.costUsd == 0.05)
        #expect(complete.usage.inputTokens == 10)
        #expect(complete.sessionId == "s1")
        #expect(complete.messageId != nil)
        #expect(m.conversation.totalCostUsd == 0.05)
        #expect(m.conversation.title == "hello")
        #expect(m.conversation.status == .idle)
    }

    @Test("an error result ends the turn with a recoverable error")
    func errorResult() {
        var m = Self.running()
        let end = m.handle(Self.result(isError: true, errors: ["tool crashed"]), now: Self.at(1))
        guard let error = Self.events(end).compactMap({ if case .error(let e) = $0 { e } else { nil } }).first else {
            Issue.record("no error event")
            return
        }
        #expect(error.message == "tool crashed")
        #expect(error.recoverable)
        #expect(!Self.names(end).contains("complete"))
    }

    @Test("a permission request becomes a pending approval; allow sends the original input")
    func allowSendsOriginalInput() throws {
        var m = Self.running()
        let input: JSONValue = ["command": "rm -f /tmp/x", "description": "Remove"]
        let ask = m.handle(.permissionRequest(AgentPermissionRequest(requestID: "req_7", toolName: "Bash", input: input, toolUseID: "toolu_1")), now: Self.at(1))
        #expect(Self.names(ask) == ["permission_required", "status"])
        #expect(m.conversation.status == .awaitingApproval)
        #expect(m.conversation.pendingApprovals == 1)
        let id = try #require(m.pendingApprovalIDs.first)
        let (approval, actions) = try m.decide(approvalID: id, decision: .allow, message: nil, updatedInput: nil, by: "k1", now: Self.at(5))
        #expect(approval.state == .allowed)
        #expect(approval.decidedBy == "k1")
        #expect(Self.commands(actions) == [.allow(requestID: "req_7", input: input)])
        #expect(Self.names(actions) == ["permission_resolved", "status"])
        #expect(m.conversation.status == .running)
    }

    @Test("deny tells the agent the person's message; deciding twice is refused")
    func denyThenDecideAgain() throws {
        var m = Self.running()
        _ = m.handle(.permissionRequest(AgentPermissionRequest(requestID: "r1", toolName: "Bash", input: [:], toolUseID: nil)), now: Self.at(1))
        let id = try #require(m.pendingApprovalIDs.first)
        let (approval, actions) = try m.decide(approvalID: id, decision: .deny, message: "not on main", updatedInput: nil, by: "local", now: Self.at(2))
        #expect(approval.state == .denied)
        #expect(Self.commands(actions) == [.deny(requestID: "r1", message: "not on main", interrupt: false)])
        #expect(throws: ConversationMachine.Refusal.approvalNotPending(id: id)) {
            try m.decide(approvalID: id, decision: .allow, message: nil, updatedInput: nil, by: "local", now: Self.at(3))
        }
    }

    @Test("allow with a changed input sends the changed input")
    func updatedInput() throws {
        var m = Self.running()
        _ = m.handle(.permissionRequest(AgentPermissionRequest(requestID: "r1", toolName: "Bash", input: ["command": "rm -rf /"], toolUseID: nil)), now: Self.at(1))
        let id = try #require(m.pendingApprovalIDs.first)
        let (_, actions) = try m.decide(approvalID: id, decision: .allow, message: nil, updatedInput: ["command": "ls"], by: "local", now: Self.at(2))
        #expect(Self.commands(actions) == [.allow(requestID: "r1", input: ["command": "ls"])])
    }

    @Test("a silent turn is reported as stalled, never killed; output clears it")
    func stall() {
        var m = Self.running()
        #expect(Self.names(m.tick(now: Self.at(59))).isEmpty)
        let stalled = m.tick(now: Self.at(61))
        guard case .status(let status) = Self.events(stalled).first else {
            Issue.record("no status event")
            return
        }
        #expect(status.status == .stalled)
        #expect(status.silentSecs == 61)
        #expect(!stalled.contains(.terminate))
        #expect(Self.events(m.tick(now: Self.at(300))).isEmpty)
        let resumed = m.handle(.textDelta(text: "back", parentToolUseID: nil), now: Self.at(301))
        #expect(m.conversation.status == .running)
        #expect(Self.names(resumed) == ["chunk", "status"])
    }

    @Test("time spent waiting for an approval is not a stall")
    func approvalWaitIsNotAStall() throws {
        var m = Self.running()
        _ = m.handle(.permissionRequest(AgentPermissionRequest(requestID: "r1", toolName: "Bash", input: [:], toolUseID: nil)), now: Self.at(1))
        #expect(Self.events(m.tick(now: Self.at(3600))).isEmpty)
        let id = try #require(m.pendingApprovalIDs.first)
        _ = try m.decide(approvalID: id, decision: .allow, message: nil, updatedInput: nil, by: "local", now: Self.at(3600))
        #expect(Self.events(m.tick(now: Self.at(3630))).isEmpty)
        #expect(m.conversation.status == .running)
    }

    @Test("messages sent during a turn queue in order and start one after another")
    func queueInOrder() {
        var m = Self.running()
        let second = m.send(text: "two", mode: .queue, now: Self.at(1))
        let third = m.send(text: "three", mode: .queue, now: Self.at(1))
        #expect(second.response.queuedPosition == 1)
        #expect(third.response.queuedPosition == 2)
        #expect(Self.commands(second.actions).isEmpty)
        var sent: [AgentCommand] = []
        sent += Self.commands(m.handle(Self.result(), now: Self.at(2)))
        sent += Self.commands(m.handle(Self.result(), now: Self.at(3)))
        #expect(sent.compactMap { if case .user(let text, _) = $0 { text } else { nil } } == ["two", "three"])
        #expect(m.conversation.queued == 0)
    }

    @Test("a steer interrupts the running turn and is sent next")
    func steer() {
        var m = Self.running()
        _ = m.send(text: "queued", mode: .queue, now: Self.at(1))
        let (response, actions) = m.send(text: "stop, do this", mode: .steer, now: Self.at(2))
        #expect(response.queuedPosition == 1)
        guard case .interrupt = Self.commands(actions).first else {
            Issue.record("no interrupt sent")
            return
        }
        let end = m.handle(Self.result(isError: true, errors: ["Request interrupted by user"]), now: Self.at(3))
        guard case .complete(let complete) = Self.events(end).first(where: { $0.name == "complete" }) else {
            Issue.record("no complete")
            return
        }
        #expect(complete.stopReason == "interrupted")
        #expect(Self.userTexts(end) == ["stop, do this"])
        #expect(m.queuedTurnIDs.count == 1)
    }

    @Test("an interrupt while an approval is pending denies it with interrupt, then interrupts")
    func interruptDuringApproval() throws {
        var m = Self.running()
        _ = m.handle(.permissionRequest(AgentPermissionRequest(requestID: "r1", toolName: "Bash", input: [:], toolUseID: nil)), now: Self.at(1))
        let (_, actions) = try m.interrupt(now: Self.at(2))
        let commands = Self.commands(actions)
        #expect(commands.count == 2)
        #expect(commands.first == .deny(requestID: "r1", message: "The turn was interrupted by the user.", interrupt: true))
        guard case .interrupt = commands.last else {
            Issue.record("no interrupt")
            return
        }
        #expect(Self.names(actions).contains("permission_resolved"))
        #expect(m.pendingApprovalIDs.isEmpty)
    }

    @Test("an interrupt with no turn running is refused")
    func interruptIdle() {
        var m = Self.machine()
        #expect(throws: ConversationMachine.Refusal.noTurnRunning) { try m.interrupt(now: Self.at(0)) }
    }

    @Test("an interrupted turn that does not end stops its process after the grace")
    func interruptGrace() throws {
        var m = Self.running()
        _ = try m.interrupt(now: Self.at(1))
        #expect(!m.tick(now: Self.at(5)).contains(.terminate))
        #expect(m.tick(now: Self.at(6.5)).contains(.terminate))
        let exited = m.processExited(.signaled(15), stderr: "", now: Self.at(7))
        #expect(Self.names(exited).contains("complete"))
        #expect(!Self.names(exited).contains("error"))
    }

    @Test("a crash mid-turn is a recoverable error; the next message resumes the session")
    func crashThenContinue() {
        var m = Self.running()
        _ = m.handle(.system(AgentSystem(subtype: "init", sessionID: "s1")), now: Self.at(0.5))
        _ = m.handle(.textDelta(text: "partial", parentToolUseID: nil), now: Self.at(1))
        let exited = m.processExited(.exited(3), stderr: "warming up\nfatal: simulated crash\n", now: Self.at(2))
        #expect(Self.names(exited) == ["segment_end", "title_update", "error", "status"])
        guard case .error(let error) = Self.events(exited)[2] else { return }
        #expect(error.recoverable)
        #expect(error.message.contains("exit code 3"))
        #expect(error.message.contains("fatal: simulated crash"))
        #expect(!m.conversation.processRunning)
        let (_, next) = m.send(text: "go on", mode: .queue, now: Self.at(3))
        #expect(next.contains(.spawn(resumeSessionID: "s1")))
    }

    @Test("a session the agent no longer knows: the turn goes on in a new session, started once")
    func resumeFailure() {
        var m = Self.machine(session: "gone")
        _ = m.send(text: "hi", mode: .queue, now: Self.at(0))
        let first = m.processStarted(now: Self.at(0))
        #expect(Self.names(first).contains("turn_start"))
        let exited = m.processExited(.exited(1), stderr: "No conversation found with session ID: gone", now: Self.at(1))
        #expect(exited.contains(.spawn(resumeSessionID: nil)))
        #expect(Self.names(exited).contains("error"))
        let again = m.processStarted(now: Self.at(1.1))
        #expect(!Self.names(again).contains("turn_start"))
        #expect(Self.userTexts(again) == ["hi"])
    }

    @Test("a process with nothing to do is stopped after the idle time, without an error")
    func idleStop() {
        var m = Self.running()
        _ = m.handle(Self.result(), now: Self.at(1))
        #expect(!m.tick(now: Self.at(100)).contains(.terminate))
        #expect(m.tick(now: Self.at(122)).contains(.terminate))
        let exited = m.processExited(.exited(0), stderr: "", now: Self.at(123))
        #expect(!Self.names(exited).contains("error"))
        #expect(!m.conversation.processRunning)
    }

    @Test("a backend that cannot start fails the waiting turns with an error that says why")
    func spawnFailure() {
        var m = Self.machine()
        _ = m.send(text: "one", mode: .queue, now: Self.at(0))
        let actions = m.processFailedToStart("claude not found on PATH", now: Self.at(0))
        guard case .error(let error) = Self.events(actions).first else {
            Issue.record("no error")
            return
        }
        #expect(!error.recoverable)
        #expect(error.message.contains("claude not found on PATH"))
        #expect(m.queuedTurnIDs.isEmpty)
        #expect(m.lastEnded?.turnID == error.turnId && m.lastEnded?.state == .error, "a loop waiting for the turn hears it ended")
    }

    @Test("after a restart: running turns end in an error, pending approvals are cancelled, queued turns start")
    func recovery() {
        let conversation = Conversation(
            id: "c1", title: "t", cwd: "/w", backend: "claude", createdAt: "x", updatedAt: "x", lastActivityAt: "x", sessionId: "s1", status: .running,
            processRunning: true, queued: 1, pendingApprovals: 1
        )
        let queued = Turn(id: "t2", conversationId: "c1", text: "next", state: .queued, createdAt: "x")
        var m = ConversationMachine(conversation: conversation, queued: [queued])
        let running = Turn(id: "t1", conversationId: "c1", text: "first", state: .running, createdAt: "x")
        let approval = Approval(id: "a1", conversationId: "c1", turnId: "t1", toolUseId: nil, toolName: "Bash", input: [:], createdAt: "x")
        let actions = m.recover(interrupted: [running], pending: [approval], now: Self.at(0))
        #expect(Self.names(actions).prefix(2) == ["permission_resolved", "error"])
        #expect(actions.contains(.spawn(resumeSessionID: "s1")))
        let started = m.processStarted(now: Self.at(1))
        #expect(Self.userTexts(started) == ["next"])
    }

    @Test("sub-agent lines and unknown lines change nothing")
    func ignoredLines() {
        var m = Self.running()
        #expect(Self.events(m.handle(.textDelta(text: "sub", parentToolUseID: "toolu_9"), now: Self.at(1))).isEmpty)
        #expect(Self.events(m.handle(.other(type: "mystery", raw: [:]), now: Self.at(1))).isEmpty)
        #expect(Self.events(m.handle(.notJSON("garbage"), now: Self.at(1))).isEmpty)
    }
}
