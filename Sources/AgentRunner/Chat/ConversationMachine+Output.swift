import Foundation
import RalphAPI

extension ConversationMachine {
    /// One output of the agent (a decoded stdout line).
    ///
    /// Facts about the process come first (session id, version, permission mode, whether our message began). Then turn
    /// output goes to the turn the agent is running: ours once it began, else a turn of its own, which is opened for it.
    public mutating func handle(_ output: AgentEvent, now: Date) -> [Action] {
        var actions: [Action] = []
        switch output {
        case .lifecycle(let uuid, let state):
            lifecycle = true
            actions += lifecycle(uuid: uuid, state: state, now: now)
            return actions + settle(now: now)
        case .system(let system):
            actions += note(system, now: now)
            return actions + settle(now: now)
        case .taskNotification(_, _, let summary):
            notification = summary.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } ?? "a background task ended"
            return []
        case .result(let result) where isLostSession(result):
            actions += continueInNewSession(reason: result.errorText, now: now)
            return actions + pump(now: now) + settle(now: now)
        case .sessionLost(let reason):
            guard case .running(resumed: true) = process, !processBeganTurn else { return settle(now: now) }
            actions += continueInNewSession(reason: reason, now: now)
            return actions + pump(now: now) + settle(now: now)
        case .result(let result):
            if let uuid = current?.uuid, result.userMessageUUIDs.contains(uuid) { actions += markStarted(now: now) }
        default:
            break
        }
        if runningSlot == nil {
            guard Self.opensTurn(output) else { return actions + settle(now: now) }
            actions += beginAgentTurn(now: now)
        }
        guard let slot = runningSlot else { return actions + settle(now: now) }
        actions += handleTurnOutput(output, slot: slot, now: now)
        return actions + settle(now: now)
    }

    /// Output that only a running turn produces; anything else (answers to our control requests, sub-agent lines,
    /// unknown lines) never opens one.
    static func opensTurn(_ output: AgentEvent) -> Bool {
        switch output {
        case .textDelta(_, nil), .assistantText(_, _, nil), .toolUse(_, _, _, _, nil), .toolResults(_, nil), .permissionRequest, .result, .apiRetry:
            true
        default:
            false
        }
    }

    /// A `command_lifecycle` line about one of our messages.
    mutating func lifecycle(uuid: String, state: String, now: Date) -> [Action] {
        guard let current, current.uuid == uuid else { return [] }
        switch state {
        case "started":
            return markStarted(now: now)
        case "cancelled" where !current.started && current.interruptRequested != nil:
            // Interrupted before the agent began it.
            return endTurn(.ours, state: .interrupted, result: nil, error: nil, now: now) + pump(now: now)
        case "cancelled", "completed":
            guard !current.started else { return [] }
            // The agent dropped our message without beginning it (an interrupt of its own turn cancels what waits; a
            // uuid it had seen before is skipped): it goes first in the queue again, under a new uuid, a few times.
            guard sends[current.turn.id, default: 0] < Self.maxSends else {
                let message = "\(conversation.backend) did not run this message (it was \(state) \(Self.maxSends) times without being begun)"
                return endTurn(.ours, state: .error, result: nil, error: message, now: now) + pump(now: now)
            }
            queue.insert(Queued(turn: current.turn, userMessageID: current.userMessageID), at: 0)
            self.current = nil
            return pump(now: now)
        default:
            return []
        }
    }

    /// How many times a message is given to the agent before it is failed instead.
    static let maxSends = 3

    /// Our message began: a turn of the agent's own still open (it never reported its end) ends first.
    mutating func markStarted(now: Date) -> [Action] {
        guard var current, !current.started else { return [] }
        var actions: [Action] = []
        if agentTurn != nil { actions += endTurn(.agent, state: .complete, result: nil, error: nil, now: now) }
        current.started = true
        current.lastOutput = now
        self.current = current
        processBeganTurn = true
        return actions
    }

    /// A `system` line: session id, version, permission mode, lifecycle support, and whether our message began.
    mutating func note(_ system: AgentSystem, now: Date) -> [Action] {
        var actions: [Action] = []
        var changed = false
        if let session = system.sessionID, session != conversation.sessionId {
            conversation.sessionId = session
            changed = true
        }
        if let version = system.version, version != conversation.agentVersion {
            conversation.agentVersion = version
            changed = true
        }
        if let mode = system.permissionMode, mode != conversation.agentPermissionMode {
            conversation.agentPermissionMode = mode
            changed = true
            actions.append(permissionsChanged())
        }
        if changed { actions.insert(.save(.conversation(conversation)), at: 0) }
        if let capabilities = system.capabilities {
            lifecycle = capabilities.contains("msg_lifecycle_v1")
            if lifecycle == false { actions += markStarted(now: now) }
        }
        if let uuid = current?.uuid, system.userMessageUUIDs.contains(uuid) { actions += markStarted(now: now) }
        if system.subtype == "status", system.status == "requesting", let slot = runningSlot, var turn = self[slot] {
            // A model request begins: the turn is alive.
            turn.lastOutput = now
            turn.stalled = false
            self[slot] = turn
        }
        return actions
    }

    /// Output of the turn in `slot`.
    mutating func handleTurnOutput(_ output: AgentEvent, slot: Slot, now: Date) -> [Action] {
        guard var turn = self[slot] else { return [] }
        turn.lastOutput = now
        turn.sawOutput = true
        turn.stalled = false
        if case .apiRetry = output {} else { turn.retry = nil }
        let turnID = turn.turn.id
        var actions: [Action] = []
        switch output {
        case .apiRetry(let attempt, let maxRetries, let error, let errorStatus, let retryDelayMs):
            turn.retry = APIRetry(
                attempt: attempt, maxRetries: maxRetries, error: error, errorStatus: errorStatus, retryDelayMs: retryDelayMs, at: Timestamp.format(now)
            )
        case .textDelta(let text, nil):
            guard !text.isEmpty else { break }
            turn.segment += text
            turn.deltas += text
            actions.append(.emit(.chunk(ChunkEvent(turnId: turnID, text: text))))
        case .assistantText(_, let text, nil):
            var rest = text
            if !turn.deltas.isEmpty {
                rest = text.hasPrefix(turn.deltas) ? String(text.dropFirst(turn.deltas.count)) : ""
                turn.deltas = ""
            }
            if !rest.isEmpty {
                turn.segment += rest
                actions.append(.emit(.chunk(ChunkEvent(turnId: turnID, text: rest))))
            }
        case .userText(let text):
            // Output of a slash command.
            let inner = Self.localCommandOutput(text)
            if !inner.isEmpty {
                turn.segment += inner
                actions.append(.emit(.chunk(ChunkEvent(turnId: turnID, text: inner))))
            }
        case .toolUse(_, let toolUseID, let name, let input, nil):
            actions += toolStarted(&turn, toolUseID: toolUseID, name: name, input: input, now: now)
        case .toolResults(let results, nil):
            actions += toolsEnded(&turn, results)
        case .permissionRequest(let request):
            actions += permissionRequested(&turn, request, now: now)
        case .result(let result):
            self[slot] = turn
            let state: TurnState = turn.interruptRequested != nil ? .interrupted : (result.isError ? .error : .complete)
            var error: String?
            if state == .error {
                let text = result.errorText
                error = text.isEmpty ? "the agent reported an error (\(result.subtype))" : text
            }
            actions += endTurn(slot, state: state, result: result, error: error, now: now)
            return actions + pump(now: now)
        case .system, .lifecycle, .taskNotification, .controlResponse, .other, .notJSON, .textDelta, .assistantText, .toolUse, .toolResults,
            .sessionLost:
            // Answers to our control requests, sub-agent lines and unknown lines change nothing the phone shows.
            break
        }
        self[slot] = turn
        return actions
    }

    /// A tool call: the text so far becomes a message, the call is stored on it and announced.
    mutating func toolStarted(_ turn: inout Current, toolUseID: String, name: String, input: JSONValue, now: Date) -> [Action] {
        var actions = closeSegment(&turn, now: now)
        if turn.lastMessageID == nil {
            // A tool before any text: an empty assistant message holds it.
            let message = ChatMessage(
                id: makeID("m"), conversationId: conversation.id, turnId: turn.turn.id, role: .assistant, text: "", createdAt: Timestamp.format(now)
            )
            turn.messages[message.id] = message
            turn.order.append(message.id)
            turn.lastMessageID = message.id
            conversation.messageCount += 1
        }
        guard let messageID = turn.lastMessageID, var message = turn.messages[messageID] else { return actions }
        message.toolCalls.append(ToolCall(toolUseId: toolUseID, name: name, input: input))
        turn.messages[messageID] = message
        turn.toolMessage[toolUseID] = messageID
        actions.append(.save(.message(message)))
        actions.append(.emit(.toolStart(ToolEvent(turnId: turn.turn.id, toolUseId: toolUseID, name: name, input: input, messageId: messageID))))
        return actions
    }

    /// Tool results: each call gets its real output.
    mutating func toolsEnded(_ turn: inout Current, _ results: [AgentToolResult]) -> [Action] {
        var actions: [Action] = []
        for result in results {
            guard let messageID = turn.toolMessage[result.toolUseID], var message = turn.messages[messageID],
                let index = message.toolCalls.firstIndex(where: { $0.toolUseId == result.toolUseID })
            else { continue }
            message.toolCalls[index].output = result.output
            message.toolCalls[index].isError = result.isError
            message.toolCalls[index].diffs = result.diffs
            turn.messages[messageID] = message
            let call = message.toolCalls[index]
            actions.append(.save(.message(message)))
            actions.append(
                .emit(
                    .toolEnd(
                        ToolEvent(
                            turnId: turn.turn.id, toolUseId: call.toolUseId, name: call.name, input: call.input, output: result.output,
                            isError: result.isError, messageId: messageID, diffs: result.diffs
                        )
                    )
                )
            )
        }
        return actions
    }

    // MARK: - Lost sessions

    /// A `result` saying the agent does not know the session it was resumed with, before it began anything.
    func isLostSession(_ result: AgentTurnResult) -> Bool {
        guard result.isError, case .running(resumed: true) = process, !processBeganTurn else { return false }
        return Self.isLostSession(result.errorText)
    }

    /// The agent's words for a session it cannot resume.
    static func isLostSession(_ text: String) -> Bool {
        text.contains("No conversation found with session ID") || text.contains("--resume requires a valid session ID")
    }

    /// The agent cannot resume the conversation's session: the conversation goes on in a new one, the turn that was
    /// sent runs again there, and everyone is told that the agent no longer remembers what came before.
    mutating func continueInNewSession(reason: String, now: Date) -> [Action] {
        let session = conversation.sessionId ?? "(unknown)"
        conversation.sessionId = nil
        process = process == .stopped ? .stopped : .stopping
        var actions: [Action] = [.save(.conversation(conversation))]
        let message =
            "could not resume session \(session)" + (reason.isEmpty ? "" : " (\(reason))")
            + "; continuing in a new session, which does not remember the earlier messages"
        if var current {
            actions += cancelApprovals(&current, now: now)
            queue.insert(Queued(turn: current.turn, userMessageID: current.userMessageID), at: 0)
            self.current = nil
            actions.append(.emit(.error(ChatErrorEvent(turnId: current.turn.id, message: message, recoverable: true))))
        } else {
            actions.append(.emit(.error(ChatErrorEvent(turnId: nil, message: message, recoverable: true))))
        }
        return actions
    }
}
