import Foundation
import RalphAPI

extension ConversationMachine {
    /// Starts the next queued turn when nothing runs, starting the process first if needed.
    mutating func pump(now: Date) -> [Action] {
        guard current == nil, !queue.isEmpty else {
            if current == nil, agentTurn == nil, queue.isEmpty, idleSince == nil { idleSince = now }
            return []
        }
        switch process {
        case .stopping, .starting:
            // Its exit (or its start) will pump again.
            return []
        case .stopped:
            process = .starting(resumed: conversation.sessionId != nil)
            return [.spawn(resumeSessionID: conversation.sessionId)]
        case .running:
            return startTurn(queue.removeFirst(), now: now)
        }
    }

    /// Gives a queued turn to the agent. While the agent runs a turn of its own, it waits inside the agent, which begins
    /// it afterwards (and says so).
    mutating func startTurn(_ entry: Queued, now: Date) -> [Action] {
        var actions: [Action] = []
        let stamp = Timestamp.format(now)
        var turn = entry.turn
        let messageID: String
        if let existing = entry.userMessageID {
            messageID = existing
        } else {
            messageID = makeID("m")
            turn.state = .running
            turn.startedAt = stamp
            let message = ChatMessage(id: messageID, conversationId: conversation.id, turnId: turn.id, role: .user, text: turn.text, createdAt: stamp)
            conversation.messageCount += 1
            conversation.lastMessagePreview = Self.preview(turn.text)
            conversation.lastActivityAt = stamp
            actions.append(.save(.turn(turn)))
            actions.append(.save(.message(message)))
            actions.append(.emit(.turnStart(TurnStartEvent(turnId: turn.id, text: turn.text, messageId: messageID))))
        }
        // A turn sent again (to a new process, or after the agent dropped it) gets a new uuid: the agent may remember
        // the old one.
        let sent = sends[turn.id, default: 0]
        sends[turn.id] = sent + 1
        let uuid = sent == 0 ? turn.id : "\(turn.id)-\(sent + 1)"
        current = Current(turn: turn, userMessageID: messageID, uuid: uuid, started: lifecycle == false, lastOutput: now)
        idleSince = nil
        actions.append(.send(.user(text: turn.text, id: uuid)))
        return actions
    }

    /// The agent began a turn by itself: it is stored and announced as the agent's, with a note of what woke it.
    mutating func beginAgentTurn(now: Date) -> [Action] {
        let stamp = Timestamp.format(now)
        let text = notification.map { "A background task finished: \($0)" } ?? "The agent continued on its own."
        notification = nil
        let turn = Turn(
            id: makeID("t"), conversationId: conversation.id, text: text, state: .running, createdAt: stamp, startedAt: stamp, origin: .agent
        )
        let note = ChatMessage(id: makeID("m"), conversationId: conversation.id, turnId: turn.id, role: .system, text: text, createdAt: stamp)
        conversation.messageCount += 1
        conversation.lastActivityAt = stamp
        agentTurn = Current(turn: turn, userMessageID: nil, uuid: nil, started: true, lastOutput: now)
        processBeganTurn = true
        idleSince = nil
        return [
            .save(.turn(turn)), .save(.message(note)), .emit(.turnStart(TurnStartEvent(turnId: turn.id, text: text, messageId: note.id, origin: .agent))),
        ]
    }

    mutating func requestInterrupt(_ slot: Slot, now: Date, reason: String) -> [Action] {
        guard var turn = self[slot], turn.interruptRequested == nil else { return [] }
        var actions: [Action] = []
        turn.interruptRequested = now
        // An approval the CLI is blocked on is answered first, or the interrupt would wait behind it.
        for id in turn.pending.keys.sorted() {
            guard let pending = turn.pending[id] else { continue }
            actions.append(.send(.deny(requestID: pending.requestID, message: "The turn was \(reason).", interrupt: true)))
        }
        actions += cancelApprovals(&turn, now: now)
        requestCounter += 1
        actions.append(.send(.interrupt(requestID: "rm-interrupt-\(requestCounter)")))
        self[slot] = turn
        return actions
    }

    mutating func cancelApprovals(_ turn: inout Current, now: Date) -> [Action] {
        var actions: [Action] = []
        for id in turn.pending.keys.sorted() {
            guard var approval = turn.pending[id]?.approval else { continue }
            approval.state = .cancelled
            approval.decidedBy = "system"
            approval.decidedAt = Timestamp.format(now)
            approval.message = "the turn ended before it was answered"
            actions.append(.save(.approval(approval)))
            actions.append(.emit(.permissionResolved(PermissionResolvedEvent(approvalId: id, decision: "cancelled", by: "system", message: approval.message))))
        }
        turn.pending = [:]
        return actions
    }

    /// Stores the text streamed since the last segment as a message and tells the clients its id.
    mutating func closeSegment(_ turn: inout Current, now: Date) -> [Action] {
        turn.deltas = ""
        guard !turn.segment.isEmpty else { return [] }
        let message = ChatMessage(
            id: makeID("m"), conversationId: conversation.id, turnId: turn.turn.id, role: .assistant, text: turn.segment, createdAt: Timestamp.format(now)
        )
        turn.segment = ""
        turn.messages[message.id] = message
        turn.order.append(message.id)
        turn.lastMessageID = message.id
        conversation.messageCount += 1
        conversation.lastMessagePreview = Self.preview(message.text)
        return [.save(.message(message)), .emit(.segmentEnd(SegmentEndEvent(turnId: turn.turn.id, messageId: message.id)))]
    }

    /// The turn's own cost: how much the process's running total grew since the last result (the CLI restarts the total
    /// at 0 in each process), so a turn that failed before reaching the model costs nothing and the turns of a
    /// process add up to the CLI's own total.
    mutating func cost(of result: AgentTurnResult) -> Double? {
        guard let total = result.totalCostUSD else { return nil }
        let own = max(0, total - processCost)
        processCost = max(processCost, total)
        return own
    }

    /// Ends the turn in `slot`: stores its text and totals, cancels what it left pending, titles a new conversation,
    /// then the terminal event (`complete`, or `error`).
    mutating func endTurn(_ slot: Slot, state: TurnState, result: AgentTurnResult?, error: String?, now: Date) -> [Action] {
        guard var current = self[slot] else { return [] }
        let stamp = Timestamp.format(now)
        var actions = closeSegment(&current, now: now)
        actions += cancelApprovals(&current, now: now)
        var turn = current.turn
        turn.state = state
        turn.endedAt = stamp
        turn.error = error
        let usage = result?.usage ?? TokenUsage()
        if let result {
            let own = cost(of: result)
            turn.sessionId = result.sessionID ?? conversation.sessionId
            turn.costUsd = own
            turn.usage = result.usage
            turn.durationMs = result.durationMs
            turn.stopReason = state == .interrupted ? "interrupted" : (result.stopReason ?? result.subtype)
            if let session = result.sessionID { conversation.sessionId = session }
            conversation.totalCostUsd += own ?? 0
            conversation.usage = conversation.usage + result.usage
        } else if state == .interrupted {
            turn.stopReason = "interrupted"
        }
        var finalMessageID: String?
        if let id = current.lastMessageID, var message = current.messages[id] {
            message.costUsd = turn.costUsd
            message.usage = turn.usage
            current.messages[id] = message
            finalMessageID = id
            actions.append(.save(.message(message)))
        }
        conversation.lastActivityAt = stamp
        let reply = current.order.compactMap { current.messages[$0]?.text }.filter { !$0.isEmpty }
        lastEnded = EndedTurn(turnID: turn.id, prompt: turn.text, reply: reply.joined(separator: "\n\n"), state: state, error: error, origin: turn.origin)
        actions.append(.save(.turn(turn)))
        if !conversation.titleIsCustom, conversation.title.isEmpty, turn.origin == .user {
            conversation.title = Self.title(from: turn.text)
            actions.append(.emit(.titleUpdate(TitleUpdateEvent(title: conversation.title))))
        }
        if state == .error {
            actions.append(.emit(.error(ChatErrorEvent(turnId: turn.id, message: error ?? "the turn failed", recoverable: true))))
        } else {
            actions.append(
                .emit(
                    .complete(
                        CompleteEvent(
                            turnId: turn.id, sessionId: turn.sessionId ?? conversation.sessionId, costUsd: turn.costUsd, usage: usage,
                            durationMs: turn.durationMs, stopReason: turn.stopReason, messageId: finalMessageID
                        )
                    )
                )
            )
        }
        self[slot] = nil
        if self.current == nil, agentTurn == nil { idleSince = now }
        return actions
    }

    /// Brings the conversation's status, queue count, approval count and retry up to date; saves and announces a
    /// change.
    mutating func settle(now: Date, silentSecs: Int? = nil) -> [Action] {
        let running = activeSlot.flatMap { self[$0] }
        let pending = (current?.pending.count ?? 0) + (agentTurn?.pending.count ?? 0)
        let status: ConversationStatus
        var retry: APIRetry?
        if let running {
            if pending > 0 {
                status = .awaitingApproval
            } else if let last = running.retry {
                status = .retrying
                retry = last
            } else if running.stalled {
                status = .stalled
            } else {
                status = .running
            }
        } else {
            status = .idle
        }
        let processRunning: Bool
        switch process {
        case .running, .stopping: processRunning = true
        case .stopped, .starting: processRunning = false
        }
        let statusChanged = status != conversation.status || queue.count != conversation.queued || retry != conversation.retry || silentSecs != nil
        guard statusChanged || pending != conversation.pendingApprovals || processRunning != conversation.processRunning else { return [] }
        conversation.status = status
        conversation.queued = queue.count
        conversation.pendingApprovals = pending
        conversation.processRunning = processRunning
        conversation.retry = retry
        conversation.updatedAt = Timestamp.format(now)
        var actions: [Action] = [.save(.conversation(conversation))]
        if statusChanged {
            let turnID = running?.turn.id
            actions.append(.emit(.status(StatusEvent(status: status, turnId: turnID, silentSecs: silentSecs, queued: queue.count, retry: retry))))
        }
        return actions
    }

    // MARK: - Text helpers

    static func preview(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return flat.count > 120 ? String(flat.prefix(119)) + "…" : flat
    }

    /// A title from the first message: its first line, at most 60 characters.
    static func title(from text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        if line.isEmpty { return "Conversation" }
        return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }

    /// The last non-empty lines of stderr (at most 3, 400 characters).
    static func lastLines(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let tail = lines.suffix(3).joined(separator: " | ")
        return tail.count > 400 ? String(tail.suffix(400)) : tail
    }

    /// The inside of `<local-command-stdout>…</local-command-stdout>`, or the text itself.
    static func localCommandOutput(_ text: String) -> String {
        guard let start = text.range(of: "<local-command-stdout>"), let end = text.range(of: "</local-command-stdout>", range: start.upperBound..<text.endIndex)
        else { return "" }
        return String(text[start.upperBound..<end.lowerBound])
    }
}
