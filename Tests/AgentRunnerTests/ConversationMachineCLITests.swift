import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// What the real Claude CLI (2.1.330) does that the driver must follow: turns named by our uuid, turns the CLI starts
/// by itself, a running total for cost, a lost session reported as a result line, API retries, version and mode.
@Suite("Conversation machine and the real CLI's protocol")
struct ConversationMachineCLITests {
    typealias T = ConversationMachineTests

    /// A machine whose agent reports lifecycles, with the message "hello" sent (not yet begun by the agent).
    static func sent(session: String? = "s1") -> ConversationMachine {
        var m = T.machine(session: session)
        _ = m.send(text: "hello", mode: .queue, now: T.at(0))
        _ = m.processStarted(now: T.at(0))
        _ = m.handle(.lifecycle(commandUUID: m.currentTurnID ?? "", state: "queued"), now: T.at(0.1))
        return m
    }

    static func result(total: Double?, uuids: [String] = [], isError: Bool = false, errors: [String] = [], session: String = "s1") -> AgentEvent {
        .result(
            AgentTurnResult(
                subtype: isError ? "error_during_execution" : "success", isError: isError, sessionID: session, durationMs: 100, totalCostUSD: total,
                usage: TokenUsage(inputTokens: 100, outputTokens: 20), errors: errors, userMessageUUIDs: uuids
            )
        )
    }

    static func completes(_ actions: [ConversationMachine.Action]) -> [CompleteEvent] {
        T.events(actions).compactMap { if case .complete(let e) = $0 { e } else { nil } }
    }

    @Test("each message goes to the agent with its turn id as uuid")
    func messagesCarryTheirTurnID() throws {
        var m = T.machine()
        _ = m.send(text: "hello", mode: .queue, now: T.at(0))
        let started = m.processStarted(now: T.at(0))
        let turn = try #require(m.currentTurnID)
        #expect(T.commands(started) == [.user(text: "hello", id: turn)])
        #expect(ClaudeInput.user(text: "hello", uuid: turn) == Array(#"{"type":"user","uuid":"\#(turn)","message":{"role":"user","content":"hello"}}"#.utf8) + [0x0A])
    }

    @Test("output before our message began is a turn of the agent's own; our answer is never taken from it")
    func agentTurnIsKeptApart() throws {
        var m = Self.sent()
        let ours = try #require(m.currentTurnID)
        _ = m.handle(.taskNotification(taskID: "a1", status: "completed", summary: "sub says 42"), now: T.at(1))
        let opened = m.handle(.textDelta(text: "The helper said 42.", parentToolUseID: nil), now: T.at(1))
        guard case .turnStart(let start)? = T.events(opened).first else {
            Issue.record("no turn_start for the agent's turn: \(T.names(opened))")
            return
        }
        #expect(start.origin == .agent)
        #expect(start.turnId != ours)
        #expect(start.text.contains("sub says 42"))
        #expect(T.events(opened).contains { if case .chunk(let c) = $0 { c.turnId == start.turnId } else { false } })
        let agentEnd = m.handle(Self.result(total: 0.002), now: T.at(2))
        #expect(Self.completes(agentEnd).map(\.turnId) == [start.turnId])
        #expect(m.currentTurnID == ours, "our message still waits for its answer")

        _ = m.handle(.lifecycle(commandUUID: ours, state: "started"), now: T.at(3))
        let answer = m.handle(.textDelta(text: "Here is your answer.", parentToolUseID: nil), now: T.at(3))
        #expect(T.events(answer).allSatisfy { if case .chunk(let c) = $0 { c.turnId == ours } else { true } })
        let end = m.handle(Self.result(total: 0.003, uuids: [ours]), now: T.at(4))
        #expect(Self.completes(end).map(\.turnId) == [ours])
        #expect(m.lastEnded?.reply == "Here is your answer.")
        #expect(m.lastEnded?.origin == .user)
        #expect(m.isIdle)
    }

    @Test("a turn the agent starts between ours is stored with a note saying why, and ours waits behind it")
    func agentTurnBetweenOurs() throws {
        var m = Self.sent()
        let first = try #require(m.currentTurnID)
        _ = m.handle(.lifecycle(commandUUID: first, state: "started"), now: T.at(1))
        _ = m.handle(Self.result(total: 0.001, uuids: [first]), now: T.at(2))
        let opened = m.handle(.assistantText(messageID: "msg_9", text: "Background work is done.", parentToolUseID: nil), now: T.at(3))
        let note = opened.compactMap { if case .save(.message(let message)) = $0 { message } else { nil } }.first
        #expect(note?.role == .system)
        #expect(m.agentTurnID != nil)
        #expect(m.conversation.status == .running)
        // A message sent now is given to the agent, which runs it after its own turn.
        let (_, sendActions) = m.send(text: "next", mode: .queue, now: T.at(4))
        let next = try #require(m.currentTurnID)
        #expect(T.commands(sendActions) == [.user(text: "next", id: next)])
        let more = m.handle(.textDelta(text: " More.", parentToolUseID: nil), now: T.at(5))
        #expect(T.events(more).allSatisfy { if case .chunk(let c) = $0 { c.turnId == m.agentTurnID } else { true } })
        _ = m.handle(Self.result(total: 0.002), now: T.at(6))
        #expect(m.agentTurnID == nil)
        #expect(m.currentTurnID == next)
    }

    @Test("a turn's cost is how much the running total grew; a failed turn costs nothing; a new process counts from zero")
    func costFromRunningTotal() throws {
        var m = T.machine()
        var costs: [Double?] = []
        for (i, total) in [0.0016, 0.0032, 0.0048].enumerated() {
            _ = m.send(text: "turn \(i)", mode: .queue, now: T.at(Double(i)))
            if i == 0 { _ = m.processStarted(now: T.at(0)) }
            costs += Self.completes(m.handle(Self.result(total: total), now: T.at(Double(i) + 0.5))).map(\.costUsd)
        }
        // An API error: the CLI repeats its running total, the turn itself cost nothing.
        _ = m.send(text: "overloaded", mode: .queue, now: T.at(4))
        let failed = m.handle(Self.result(total: 0.0048, isError: true, errors: ["API Error: 400"]), now: T.at(4.5))
        let failedTurn = failed.compactMap { if case .save(.turn(let t)) = $0, t.state == .error { t } else { nil } }.first
        #expect(failedTurn?.costUsd == 0)
        // A new process (idle stop, then --resume): its total starts again at 0.
        _ = m.processExited(.exited(0), stderr: "", now: T.at(5))
        _ = m.send(text: "after resume", mode: .queue, now: T.at(6))
        _ = m.processStarted(now: T.at(6))
        costs += Self.completes(m.handle(Self.result(total: 0.0008), now: T.at(7))).map(\.costUsd)
        let expected = [0.0016, 0.0016, 0.0016, 0.0008]
        #expect(zip(costs, expected).allSatisfy { abs(($0 ?? -1) - $1) < 1e-12 }, "\(costs)")
        #expect(abs(m.conversation.totalCostUsd - 0.0056) < 1e-12, "the turns add up to the CLI's totals: \(m.conversation.totalCostUsd)")
    }

    @Test("a lost session reported on stdout: the message runs again in a new session, and the person is told")
    func lostSessionResultLine() throws {
        var m = T.machine(session: "11111111-2222-3333-4444-555555555555")
        _ = m.send(text: "hi", mode: .queue, now: T.at(0))
        let started = m.processStarted(now: T.at(0))
        guard case .user(_, let firstUUID)? = T.commands(started).first else {
            Issue.record("nothing sent")
            return
        }
        let lost = m.handle(
            Self.result(
                total: 0, isError: true, errors: ["No conversation found with session ID: 11111111-2222-3333-4444-555555555555"],
                session: "11111111-2222-3333-4444-555555555555"
            ),
            now: T.at(0.5)
        )
        #expect(!T.names(lost).contains("complete"))
        let error = try #require(T.events(lost).compactMap { if case .error(let e) = $0 { e } else { nil } }.first)
        #expect(error.recoverable)
        #expect(error.message.contains("could not resume session 11111111-2222-3333-4444-555555555555"))
        #expect(error.message.contains("new session"))
        #expect(m.conversation.sessionId == nil, "the dead session id is not kept")
        let exited = m.processExited(.exited(1), stderr: "No conversation found with session ID: 11111111-2222-3333-4444-555555555555", now: T.at(1))
        #expect(exited.contains(.spawn(resumeSessionID: nil)))
        #expect(!T.names(exited).contains("error"), "said once")
        let again = m.processStarted(now: T.at(1.5))
        #expect(!T.names(again).contains("turn_start"), "the same turn goes on")
        guard case .user(let text, let uuid)? = T.commands(again).first else {
            Issue.record("the message was not sent again")
            return
        }
        #expect(text == "hi")
        #expect(uuid != firstUUID, "sent again under a new uuid")
        _ = m.handle(.system(AgentSystem(subtype: "init", sessionID: "new-session", capabilities: ["msg_lifecycle_v1"], userMessageUUIDs: [uuid])), now: T.at(2))
        let end = m.handle(Self.result(total: 0.001, uuids: [uuid], session: "new-session"), now: T.at(3))
        #expect(!Self.completes(end).isEmpty)
        #expect(m.conversation.sessionId == "new-session")
    }

    @Test("API retries show as retrying, with the attempt and the error; output clears it")
    func apiRetries() {
        var m = T.running()
        let first = m.handle(.apiRetry(attempt: 1, maxRetries: 10, error: "overloaded", errorStatus: 529, retryDelayMs: 505), now: T.at(1))
        guard case .status(let status)? = T.events(first).last else {
            Issue.record("no status event: \(T.names(first))")
            return
        }
        #expect(status.status == .retrying)
        #expect(status.retry?.attempt == 1)
        #expect(status.retry?.errorStatus == 529)
        #expect(m.conversation.retry?.error == "overloaded")
        let second = m.handle(.apiRetry(attempt: 2, maxRetries: 10, error: "overloaded", errorStatus: 529, retryDelayMs: 1206), now: T.at(2))
        #expect(T.events(second).contains { if case .status(let s) = $0 { s.retry?.attempt == 2 } else { false } }, "every attempt is announced")
        let back = m.handle(.textDelta(text: "Finally.", parentToolUseID: nil), now: T.at(3))
        #expect(T.events(back).contains { if case .status(let s) = $0 { s.status == .running && s.retry == nil } else { false } })
        #expect(m.conversation.retry == nil)
    }

    @Test("the agent's version and permission mode come from its init; a mode change is announced")
    func versionAndMode() {
        var m = T.running()
        let initLine = m.handle(
            .system(AgentSystem(subtype: "init", sessionID: "s1", permissionMode: "default", version: "2.1.330", capabilities: ["msg_lifecycle_v1"])),
            now: T.at(1)
        )
        #expect(m.conversation.agentVersion == "2.1.330")
        #expect(m.conversation.agentPermissionMode == "default")
        #expect(T.names(initLine).contains("permissions"))
        let change = m.handle(.system(AgentSystem(subtype: "status", permissionMode: "acceptEdits")), now: T.at(2))
        guard case .permissions(let event)? = T.events(change).first(where: { $0.name == "permissions" }) else {
            Issue.record("no permissions event")
            return
        }
        #expect(event.permissionMode == "acceptEdits")
        #expect(m.conversation.agentPermissionMode == "acceptEdits")
    }

    @Test("an agent without lifecycles: output after a message is that message's turn")
    func withoutLifecycles() {
        var m = T.machine()
        _ = m.send(text: "hello", mode: .queue, now: T.at(0))
        _ = m.processStarted(now: T.at(0))
        _ = m.handle(.system(AgentSystem(subtype: "init", sessionID: "s1", capabilities: [])), now: T.at(0.5))
        let chunk = m.handle(.textDelta(text: "Hi", parentToolUseID: nil), now: T.at(1))
        #expect(!T.names(chunk).contains("turn_start"))
        #expect(Self.completes(m.handle(Self.result(total: 0.01), now: T.at(2))).first?.turnId != nil)
        #expect(m.isIdle)
    }

    @Test("a message the agent keeps skipping is failed after a few sends, never resent forever")
    func skippedMessageGivesUp() throws {
        var m = Self.sent()
        let ours = try #require(m.currentTurnID)
        var uuids: Set<String> = []
        var ended: [ChatEvent] = []
        for i in 0..<ConversationMachine.maxSends {
            guard let uuid = m.current?.uuid else { break }
            uuids.insert(uuid)
            ended += T.events(m.handle(.lifecycle(commandUUID: uuid, state: "completed"), now: T.at(Double(i + 1))))
        }
        #expect(uuids.count == ConversationMachine.maxSends, "each send had its own uuid")
        guard case .error(let error)? = ended.last(where: { $0.name == "error" }) else {
            Issue.record("the message was not failed: \(ended.map(\.name))")
            return
        }
        #expect(error.turnId == ours)
        #expect(error.message.contains("did not run this message"))
        #expect(m.isIdle)
    }

    @Test("a message the agent drops before beginning it (its own turn was interrupted) is sent again")
    func droppedMessageIsResent() throws {
        var m = Self.sent()
        let ours = try #require(m.currentTurnID)
        _ = m.handle(.textDelta(text: "agent's own", parentToolUseID: nil), now: T.at(1))
        let (_, interrupt) = try m.interrupt(now: T.at(2))
        #expect(T.commands(interrupt).contains { if case .interrupt = $0 { true } else { false } })
        _ = m.handle(Self.result(total: 0, isError: true, errors: ["aborted"]), now: T.at(3))
        #expect(m.agentTurnID == nil)
        let dropped = m.handle(.lifecycle(commandUUID: ours, state: "cancelled"), now: T.at(3.1))
        guard case .user(let text, let uuid)? = T.commands(dropped).first else {
            Issue.record("not sent again: \(dropped)")
            return
        }
        #expect(text == "hello")
        #expect(uuid != ours)
        #expect(m.currentTurnID == ours)
    }
}
