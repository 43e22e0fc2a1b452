import Foundation
import RalphAPI

/// The driver of one conversation as a value: every input (a message sent, a line the agent printed, a decision, a
/// tick of the clock, the process exiting) goes through `mutating` methods that return the ``Action``s to carry out.
///
/// The machine does no I/O and reads no clock: the server persists what it is told to save, publishes the events in
/// order, and starts, feeds and stops the agent process. Tests drive it with made-up outputs and dates.
public struct ConversationMachine: Sendable {
    public struct Configuration: Sendable {
        /// A running turn with no output for this long, and no approval pending, is reported as stalled. Never killed.
        public var stallAfter: TimeInterval = 300
        /// A process with no turn to run for this long is stopped; the next message resumes it with `--resume`.
        public var idleStopAfter: TimeInterval = 600
        /// How long an interrupted turn may take to end before the process is stopped (and resumed on the next message).
        public var interruptGrace: TimeInterval = 10
        public init() {}
    }

    public enum Action: Sendable, Hashable {
        /// Start the agent process (`--resume <id>` when given). Answer with ``processStarted(now:)`` or
        /// ``processFailedToStart(_:now:)``.
        case spawn(resumeSessionID: String?)
        case send(AgentCommand)
        /// Stop the process (close stdin, SIGTERM, SIGKILL after a grace); answer with ``processExited(_:stderr:now:)``.
        case terminate
        /// Persist, in the same transaction as the events of the step.
        case save(ChatRecord)
        /// Persist, then publish on the conversation's stream.
        case emit(ChatEvent)
    }

    /// A row to persist.
    public enum ChatRecord: Sendable, Hashable {
        case conversation(Conversation)
        case message(ChatMessage)
        case turn(Turn)
        case approval(Approval)
    }

    /// Why a request cannot be carried out; routes map these to errors.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case noTurnRunning
        case approvalNotPending(id: String)

        public var description: String {
            switch self {
            case .noTurnRunning: "no turn is running"
            case .approvalNotPending(let id): "approval \(id) is not pending"
            }
        }
    }

    enum ProcessState: Sendable, Equatable {
        case stopped
        /// Asked for; ``processStarted(now:)`` not yet received.
        case starting(resumed: Bool)
        case running(resumed: Bool)
        /// We asked it to stop (idle, interrupt that did not end); its exit is expected.
        case stopping
    }

    struct PendingApproval: Sendable {
        var requestID: String
        var approval: Approval
    }

    /// The turn being run.
    struct Current: Sendable {
        var turn: Turn
        var userMessageID: String
        /// Text of the segment being streamed (not yet a stored message).
        var segment = ""
        /// Text streamed by deltas since the last complete text block (to de-duplicate the block).
        var deltas = ""
        /// Messages of this turn by id, and the one tool calls attach to.
        var messages: [String: ChatMessage] = [:]
        /// Message ids in the order they were made.
        var order: [String] = []
        var lastMessageID: String?
        var toolMessage: [String: String] = [:]
        var pending: [String: PendingApproval] = [:]
        var lastOutput: Date
        var stalled = false
        var sawOutput = false
        var interruptRequested: Date?
    }

    /// A turn waiting for its turn, and whether it already started once (then only its text is sent again).
    struct Queued: Sendable {
        var turn: Turn
        var userMessageID: String?
    }

    /// The last turn that ended: what was asked and the agent's text (its segments joined), for the auto-reply loop.
    public struct EndedTurn: Sendable, Hashable {
        public var turnID: String
        public var prompt: String
        public var reply: String
        public var state: TurnState
        public var error: String?
    }

    public let configuration: Configuration
    public private(set) var conversation: Conversation
    public private(set) var lastEnded: EndedTurn?
    var process: ProcessState = .stopped
    var queue: [Queued] = []
    var current: Current?
    var idleSince: Date?
    var requestCounter = 0
    private let makeID: @Sendable (String) -> String

    /// - Parameters:
    ///   - queued: turns left `queued` by an earlier server, in order.
    ///   - makeID: a fresh id with the given prefix (`t` turn, `m` message, `a` approval).
    public init(
        conversation: Conversation, queued: [Turn] = [], configuration: Configuration = Configuration(),
        makeID: @escaping @Sendable (String) -> String = { "\($0)_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16) }
    ) {
        self.conversation = conversation
        self.configuration = configuration
        self.makeID = makeID
        self.queue = queued.map { Queued(turn: $0, userMessageID: nil) }
    }

    // MARK: - Public state

    /// No turn running and none queued.
    public var isIdle: Bool { current == nil && queue.isEmpty }
    public var currentTurnID: String? { current?.turn.id }
    public var queuedTurnIDs: [String] { queue.map(\.turn.id) }
    public var pendingApprovalIDs: [String] { current.map { Array($0.pending.keys).sorted() } ?? [] }

    // MARK: - Requests

    /// A message from a person. Returns its turn and its place in the queue (0 = sent now).
    public mutating func send(text: String, mode: SendMode, now: Date) -> (response: SendMessageResponse, actions: [Action]) {
        var actions: [Action] = []
        let stamp = Timestamp.format(now)
        let turn = Turn(id: makeID("t"), conversationId: conversation.id, text: text, state: .queued, createdAt: stamp)
        actions.append(.save(.turn(turn)))
        if mode == .steer, current != nil {
            queue.insert(Queued(turn: turn, userMessageID: nil), at: 0)
            actions += requestInterrupt(now: now, reason: "steered by a new message")
        } else {
            queue.append(Queued(turn: turn, userMessageID: nil))
        }
        actions += pump(now: now)
        // 0 when nothing runs before it (it starts as soon as the process is up), else its place behind the running turn.
        let position = queue.firstIndex { $0.turn.id == turn.id }.map { current == nil ? $0 : $0 + 1 } ?? 0
        actions += settle(now: now)
        return (SendMessageResponse(turnId: turn.id, queuedPosition: position), actions)
    }

    /// Interrupts the running turn; the process stays.
    public mutating func interrupt(now: Date) throws(Refusal) -> (turnID: String, actions: [Action]) {
        guard let current else { throw .noTurnRunning }
        var actions = requestInterrupt(now: now, reason: "interrupted by the user")
        actions += settle(now: now)
        return (current.turn.id, actions)
    }

    /// A person's answer to a pending approval.
    public mutating func decide(
        approvalID: String, decision: ApprovalDecision, message: String?, updatedInput: JSONValue?, by: String, now: Date
    ) throws(Refusal) -> (approval: Approval, actions: [Action]) {
        guard var current, var pending = current.pending[approvalID] else { throw .approvalNotPending(id: approvalID) }
        var actions: [Action] = []
        pending.approval.state = decision == .deny ? .denied : .allowed
        pending.approval.decision = decision
        pending.approval.message = message
        pending.approval.decidedBy = by
        pending.approval.decidedAt = Timestamp.format(now)
        current.pending[approvalID] = nil
        // Time spent waiting for a person is not silence.
        current.lastOutput = now
        current.stalled = false
        self.current = current
        actions.append(.save(.approval(pending.approval)))
        actions.append(.emit(.permissionResolved(PermissionResolvedEvent(approvalId: approvalID, decision: decision.rawValue, by: by, message: message))))
        let approval = pending.approval
        switch decision {
        case .allow:
            actions.append(.send(.allow(requestID: pending.requestID, input: updatedInput ?? approval.input, permissions: nil)))
        case .allowSession:
            actions.append(
                .send(.allow(requestID: pending.requestID, input: updatedInput ?? approval.input, permissions: Self.sessionRules(for: approval)))
            )
        case .deny:
            let text = message.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } ?? "The user denied this tool call."
            actions.append(.send(.deny(requestID: pending.requestID, message: text, interrupt: false)))
        }
        actions += settle(now: now)
        return (approval, actions)
    }

    /// A new title or pin from a person.
    public mutating func update(_ change: (inout Conversation) -> Void, now: Date) -> [Action] {
        change(&conversation)
        conversation.updatedAt = Timestamp.format(now)
        return [.save(.conversation(conversation))]
    }

    /// The rules "allow for this session" adds: the CLI's suggestions (kept for the session), or a rule for the tool.
    static func sessionRules(for approval: Approval) -> JSONValue {
        if case .array(let suggestions) = approval.suggestions, !suggestions.isEmpty {
            return .array(
                suggestions.map { suggestion in
                    guard var object = suggestion.objectValue else { return suggestion }
                    object["destination"] = .string("session")
                    return .object(object)
                }
            )
        }
        let rule: JSONValue = .object(JSONObject([("toolName", .string(approval.toolName))]))
        return .array([
            .object(JSONObject([("type", "addRules"), ("rules", .array([rule])), ("behavior", "allow"), ("destination", "session")]))
        ])
    }

    // MARK: - The process

    public mutating func processStarted(now: Date) -> [Action] {
        if case .starting(let resumed) = process { process = .running(resumed: resumed) }
        var actions = pump(now: now)
        actions += settle(now: now)
        return actions
    }

    public mutating func processFailedToStart(_ reason: String, now: Date) -> [Action] {
        process = .stopped
        var actions: [Action] = []
        // The turn that needed the process cannot run; later ones would fail the same way until someone fixes it,
        // so they fail now too instead of hanging in the queue.
        let failed = queue
        queue = []
        for entry in failed {
            var turn = entry.turn
            turn.state = .error
            turn.error = "could not start \(conversation.backend): \(reason)"
            turn.endedAt = Timestamp.format(now)
            actions.append(.save(.turn(turn)))
            actions.append(.emit(.error(ChatErrorEvent(turnId: turn.id, message: turn.error ?? reason, recoverable: false))))
            // An auto-reply loop waiting for this turn must hear that it ended.
            lastEnded = EndedTurn(turnID: turn.id, prompt: turn.text, reply: "", state: .error, error: turn.error)
        }
        actions += settle(now: now)
        return actions
    }

    /// The agent process exited (expected or not). `stderr` is the end of what it wrote there.
    public mutating func processExited(_ exit: ChildProcess.Exit, stderr: String, now: Date) -> [Action] {
        let previous = process
        process = .stopped
        var actions: [Action] = []
        if var current {
            actions += closeSegment(&current, now: now)
            let reason = Self.lastLines(stderr)
            if case .running(resumed: true) = previous, !current.sawOutput, stderr.contains("No conversation found"),
                let session = conversation.sessionId
            {
                // The agent no longer knows its session (its history was removed): go on in a new one, nothing lost.
                conversation.sessionId = nil
                actions += cancelApprovals(&current, now: now)
                actions.append(
                    .emit(.error(ChatErrorEvent(turnId: current.turn.id, message: "could not resume session \(session) (\(reason)); continuing in a new session", recoverable: true)))
                )
                queue.insert(Queued(turn: current.turn, userMessageID: current.userMessageID), at: 0)
                self.current = nil
            } else if current.interruptRequested != nil {
                self.current = current
                actions += endTurn(state: .interrupted, result: nil, error: nil, now: now)
            } else {
                self.current = current
                let message = "\(conversation.backend) exited during the turn (\(exit))" + (reason.isEmpty ? "" : ": \(reason)")
                actions += endTurn(state: .error, result: nil, error: message, now: now)
            }
        }
        actions += pump(now: now)
        actions += settle(now: now)
        return actions
    }

    /// Call about once a second: stall reports, interrupts that did not end, idle processes.
    public mutating func tick(now: Date) -> [Action] {
        var actions: [Action] = []
        if var current {
            if let asked = current.interruptRequested, now.timeIntervalSince(asked) >= configuration.interruptGrace, process != .stopping,
                process != .stopped
            {
                process = .stopping
                actions.append(.terminate)
            }
            if current.pending.isEmpty, !current.stalled, now.timeIntervalSince(current.lastOutput) >= configuration.stallAfter {
                current.stalled = true
                self.current = current
                actions += settle(now: now, silentSecs: Int(now.timeIntervalSince(current.lastOutput)))
                return actions
            }
        } else if queue.isEmpty, case .running = process, let idleSince, now.timeIntervalSince(idleSince) >= configuration.idleStopAfter {
            process = .stopping
            actions.append(.terminate)
        }
        return actions + settle(now: now)
    }

    // MARK: - The agent's output

    public mutating func handle(_ output: ClaudeOutput, now: Date) -> [Action] {
        guard var current else {
            // Between turns the CLI only repeats `init` (after a mode change); keep the session id.
            if case .system(_, let session?, _) = output, session != conversation.sessionId {
                conversation.sessionId = session
                return [.save(.conversation(conversation))]
            }
            return []
        }
        current.lastOutput = now
        current.sawOutput = true
        current.stalled = false
        let turnID = current.turn.id
        var actions: [Action] = []
        switch output {
        case .system(_, let session, _):
            if let session, session != conversation.sessionId {
                conversation.sessionId = session
                actions.append(.save(.conversation(conversation)))
            }
        case .textDelta(let text, nil):
            guard !text.isEmpty else { break }
            current.segment += text
            current.deltas += text
            actions.append(.emit(.chunk(ChunkEvent(turnId: turnID, text: text))))
        case .assistantText(_, let text, nil):
            var rest = text
            if !current.deltas.isEmpty {
                rest = text.hasPrefix(current.deltas) ? String(text.dropFirst(current.deltas.count)) : ""
                current.deltas = ""
            }
            if !rest.isEmpty {
                current.segment += rest
                actions.append(.emit(.chunk(ChunkEvent(turnId: turnID, text: rest))))
            }
        case .userText(let text):
            // Output of a slash command.
            let inner = Self.localCommandOutput(text)
            if !inner.isEmpty {
                current.segment += inner
                actions.append(.emit(.chunk(ChunkEvent(turnId: turnID, text: inner))))
            }
        case .toolUse(_, let toolUseID, let name, let input, nil):
            actions += closeSegment(&current, now: now)
            if current.lastMessageID == nil {
                // A tool before any text: an empty assistant message holds it.
                let message = ChatMessage(
                    id: makeID("m"), conversationId: conversation.id, turnId: turnID, role: .assistant, text: "", createdAt: Timestamp.format(now)
                )
                current.messages[message.id] = message
                current.order.append(message.id)
                current.lastMessageID = message.id
                conversation.messageCount += 1
            }
            if let messageID = current.lastMessageID, var message = current.messages[messageID] {
                message.toolCalls.append(ToolCall(toolUseId: toolUseID, name: name, input: input))
                current.messages[messageID] = message
                current.toolMessage[toolUseID] = messageID
                actions.append(.save(.message(message)))
                actions.append(.emit(.toolStart(ToolEvent(turnId: turnID, toolUseId: toolUseID, name: name, input: input, messageId: messageID))))
            }
        case .toolResults(let results, nil):
            for result in results {
                guard let messageID = current.toolMessage[result.toolUseID], var message = current.messages[messageID],
                    let index = message.toolCalls.firstIndex(where: { $0.toolUseId == result.toolUseID })
                else { continue }
                message.toolCalls[index].output = result.output
                message.toolCalls[index].isError = result.isError
                current.messages[messageID] = message
                let call = message.toolCalls[index]
                actions.append(.save(.message(message)))
                actions.append(
                    .emit(
                        .toolEnd(
                            ToolEvent(
                                turnId: turnID, toolUseId: call.toolUseId, name: call.name, input: call.input, output: result.output, isError: result.isError,
                                messageId: messageID
                            )
                        )
                    )
                )
            }
        case .permissionRequest(let request):
            let approval = Approval(
                id: makeID("a"), conversationId: conversation.id, turnId: turnID, toolUseId: request.toolUseID, toolName: request.toolName,
                input: request.input, suggestions: request.suggestions, reason: request.decisionReason, createdAt: Timestamp.format(now)
            )
            if current.interruptRequested != nil {
                // Being interrupted: nothing more may run.
                actions.append(.send(.deny(requestID: request.requestID, message: "The turn was interrupted.", interrupt: true)))
                break
            }
            current.pending[approval.id] = PendingApproval(requestID: request.requestID, approval: approval)
            if let toolUseID = request.toolUseID, let messageID = current.toolMessage[toolUseID], var message = current.messages[messageID],
                let index = message.toolCalls.firstIndex(where: { $0.toolUseId == toolUseID })
            {
                message.toolCalls[index].approvalId = approval.id
                current.messages[messageID] = message
                actions.append(.save(.message(message)))
            }
            actions.append(.save(.approval(approval)))
            actions.append(
                .emit(
                    .permissionRequired(
                        PermissionRequiredEvent(
                            approvalId: approval.id, turnId: turnID, toolUseId: request.toolUseID, toolName: request.toolName, input: request.input,
                            suggestions: request.suggestions
                        )
                    )
                )
            )
        case .result(let result):
            self.current = current
            let state: TurnState = current.interruptRequested != nil ? .interrupted : (result.isError ? .error : .complete)
            var error: String?
            if state == .error {
                let text = result.errors.isEmpty ? (result.resultText ?? "") : result.errors.joined(separator: "; ")
                error = text.isEmpty ? "the agent reported an error (\(result.subtype))" : text
            }
            actions += endTurn(state: state, result: result, error: error, now: now)
            actions += pump(now: now)
            actions += settle(now: now)
            return actions
        case .controlResponse, .other, .notJSON, .textDelta, .assistantText, .toolUse, .toolResults:
            // Answers to our control requests, sub-agent lines and unknown lines change nothing the phone shows.
            break
        }
        self.current = current
        return actions + settle(now: now)
    }

    // MARK: - Recovery after a restart

    /// Settles what an earlier server left behind: turns it was running end in an error, approvals it was waiting for
    /// are cancelled. Queued turns were given to `init` and start now. `unstoredText` is, per turn, the text it had
    /// streamed (and clients had shown) since its last stored message: it becomes a message, so nothing shown is lost.
    public mutating func recover(interrupted turns: [Turn], unstoredText: [String: String] = [:], pending approvals: [Approval], now: Date) -> [Action] {
        var actions: [Action] = []
        let stamp = Timestamp.format(now)
        for var approval in approvals {
            approval.state = .cancelled
            approval.decidedBy = "system"
            approval.decidedAt = stamp
            approval.message = "the server restarted before it was answered"
            actions.append(.save(.approval(approval)))
            actions.append(.emit(.permissionResolved(PermissionResolvedEvent(approvalId: approval.id, decision: "cancelled", by: "system", message: approval.message))))
        }
        for var turn in turns {
            if let text = unstoredText[turn.id], !text.isEmpty {
                let message = ChatMessage(id: makeID("m"), conversationId: conversation.id, turnId: turn.id, role: .assistant, text: text, createdAt: stamp)
                conversation.messageCount += 1
                conversation.lastMessagePreview = Self.preview(text)
                actions.append(.save(.message(message)))
                actions.append(.emit(.segmentEnd(SegmentEndEvent(turnId: turn.id, messageId: message.id))))
            }
            turn.state = .error
            turn.error = "the server restarted during this turn"
            turn.endedAt = stamp
            actions.append(.save(.turn(turn)))
            actions.append(.emit(.error(ChatErrorEvent(turnId: turn.id, message: turn.error ?? "", recoverable: true))))
        }
        conversation.pendingApprovals = 0
        actions += pump(now: now)
        actions += settle(now: now)
        return actions
    }

    // MARK: - Internals

    /// Starts the next queued turn when nothing runs, starting the process first if needed.
    private mutating func pump(now: Date) -> [Action] {
        guard current == nil, !queue.isEmpty else {
            if current == nil, queue.isEmpty, idleSince == nil { idleSince = now }
            return []
        }
        switch process {
        case .stopping:
            // Its exit will pump again.
            return []
        case .starting:
            return []
        case .stopped:
            process = .starting(resumed: conversation.sessionId != nil)
            return [.spawn(resumeSessionID: conversation.sessionId)]
        case .running:
            return startTurn(queue.removeFirst(), now: now)
        }
    }

    private mutating func startTurn(_ entry: Queued, now: Date) -> [Action] {
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
        current = Current(turn: turn, userMessageID: messageID, lastOutput: now)
        idleSince = nil
        actions.append(.send(.user(text: turn.text)))
        return actions
    }

    private mutating func requestInterrupt(now: Date, reason: String) -> [Action] {
        guard var current, current.interruptRequested == nil else { return [] }
        var actions: [Action] = []
        current.interruptRequested = now
        // An approval the CLI is blocked on is answered first, or the interrupt would wait behind it.
        for id in current.pending.keys.sorted() {
            guard let pending = current.pending[id] else { continue }
            actions.append(.send(.deny(requestID: pending.requestID, message: "The turn was \(reason).", interrupt: true)))
        }
        actions += cancelApprovals(&current, now: now)
        requestCounter += 1
        actions.append(.send(.interrupt(requestID: "rm-interrupt-\(requestCounter)")))
        self.current = current
        return actions
    }

    private mutating func cancelApprovals(_ current: inout Current, now: Date) -> [Action] {
        var actions: [Action] = []
        for id in current.pending.keys.sorted() {
            guard var approval = current.pending[id]?.approval else { continue }
            approval.state = .cancelled
            approval.decidedBy = "system"
            approval.decidedAt = Timestamp.format(now)
            approval.message = "the turn ended before it was answered"
            actions.append(.save(.approval(approval)))
            actions.append(.emit(.permissionResolved(PermissionResolvedEvent(approvalId: id, decision: "cancelled", by: "system", message: approval.message))))
        }
        current.pending = [:]
        return actions
    }

    /// Stores the text streamed since the last segment as a message and tells the clients its id.
    private mutating func closeSegment(_ current: inout Current, now: Date) -> [Action] {
        current.deltas = ""
        guard !current.segment.isEmpty else { return [] }
        let message = ChatMessage(
            id: makeID("m"), conversationId: conversation.id, turnId: current.turn.id, role: .assistant, text: current.segment,
            createdAt: Timestamp.format(now)
        )
        current.segment = ""
        current.messages[message.id] = message
        current.order.append(message.id)
        current.lastMessageID = message.id
        conversation.messageCount += 1
        conversation.lastMessagePreview = Self.preview(message.text)
        return [.save(.message(message)), .emit(.segmentEnd(SegmentEndEvent(turnId: current.turn.id, messageId: message.id)))]
    }

    /// Ends the current turn: stores its text and totals, cancels what it left pending, titles a new conversation,
    /// then the terminal event (`complete`, or `error`).
    private mutating func endTurn(state: TurnState, result: ClaudeResult?, error: String?, now: Date) -> [Action] {
        guard var current else { return [] }
        let stamp = Timestamp.format(now)
        var actions = closeSegment(&current, now: now)
        actions += cancelApprovals(&current, now: now)
        var turn = current.turn
        turn.state = state
        turn.endedAt = stamp
        turn.error = error
        let usage = result?.usage ?? TokenUsage()
        if let result {
            turn.sessionId = result.sessionID ?? conversation.sessionId
            turn.costUsd = result.totalCostUSD
            turn.usage = result.usage
            turn.durationMs = result.durationMs
            turn.stopReason = state == .interrupted ? "interrupted" : (result.stopReason ?? result.subtype)
            if let session = result.sessionID { conversation.sessionId = session }
            conversation.totalCostUsd += result.totalCostUSD ?? 0
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
        lastEnded = EndedTurn(turnID: turn.id, prompt: turn.text, reply: reply.joined(separator: "\n\n"), state: state, error: error)
        actions.append(.save(.turn(turn)))
        if !conversation.titleIsCustom, conversation.title.isEmpty {
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
        self.current = nil
        idleSince = now
        return actions
    }

    /// Brings the conversation's status, queue count and approval count up to date; saves and announces a change.
    private mutating func settle(now: Date, silentSecs: Int? = nil) -> [Action] {
        let status: ConversationStatus
        if let current {
            if !current.pending.isEmpty {
                status = .awaitingApproval
            } else if current.stalled {
                status = .stalled
            } else {
                status = .running
            }
        } else {
            status = .idle
        }
        let pending = current?.pending.count ?? 0
        let running: Bool
        switch process {
        case .running, .stopping: running = true
        case .stopped, .starting: running = false
        }
        guard status != conversation.status || queue.count != conversation.queued || pending != conversation.pendingApprovals
            || running != conversation.processRunning || silentSecs != nil
        else { return [] }
        let statusChanged = status != conversation.status || queue.count != conversation.queued || silentSecs != nil
        conversation.status = status
        conversation.queued = queue.count
        conversation.pendingApprovals = pending
        conversation.processRunning = running
        conversation.updatedAt = Timestamp.format(now)
        var actions: [Action] = [.save(.conversation(conversation))]
        if statusChanged {
            actions.append(.emit(.status(StatusEvent(status: status, turnId: current?.turn.id, silentSecs: silentSecs, queued: queue.count))))
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
