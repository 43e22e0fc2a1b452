import Foundation
import RalphAPI

/// The driver of one conversation as a value: every input (a message sent, a line the agent printed, a decision, a
/// tick of the clock, the process exiting) goes through `mutating` methods that return the ``Action``s to carry out.
///
/// The machine does no I/O and reads no clock: the server persists what it is told to save, publishes the events in
/// order, and starts, feeds and stops the agent process. Tests drive it with made-up outputs and dates.
///
/// Two turns can be in play at once. ``current`` is ours: a message we gave the agent, named by a `uuid` the agent
/// repeats (`command_lifecycle`, `user_message_uuids`) once it starts on it. ``agentTurn`` is a turn the agent started
/// by itself (after a background sub-agent finished): its output is kept and shown as its own turn, never taken for
/// the answer to our message, which the agent runs next.
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
        case ruleNotFound(id: String)

        public var description: String {
            switch self {
            case .noTurnRunning: "no turn is running"
            case .approvalNotPending(let id): "approval \(id) is not pending"
            case .ruleNotFound(let id): "session rule \(id) does not exist"
            }
        }
    }

    enum ProcessState: Sendable, Equatable {
        case stopped
        /// Asked for; ``processStarted(now:)`` not yet received.
        case starting(resumed: Bool)
        case running(resumed: Bool)
        /// We asked it to stop (idle, interrupt that did not end), or it is ending by itself (a lost session); its exit
        /// is expected.
        case stopping
    }

    struct PendingApproval: Sendable {
        var requestID: String
        var approval: Approval
    }

    /// A turn the agent runs or is about to run.
    struct Current: Sendable {
        var turn: Turn
        /// The message that started it (none for a turn the agent started by itself).
        var userMessageID: String?
        /// The `uuid` the turn was sent with; the agent names the turn by it.
        var uuid: String?
        /// The agent began it (always true for the agent's own turns).
        var started: Bool
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
        /// The model API retry the agent reported last, until output arrives again.
        var retry: APIRetry?
    }

    /// Which turn an input is about.
    enum Slot: Sendable {
        /// ``current``: a message of ours.
        case ours
        /// ``agentTurn``: a turn the agent started by itself.
        case agent
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
        public var origin: TurnOrigin
    }

    public let configuration: Configuration
    public internal(set) var conversation: Conversation
    public internal(set) var lastEnded: EndedTurn?
    var process: ProcessState = .stopped
    var queue: [Queued] = []
    var current: Current?
    var agentTurn: Current?
    var idleSince: Date?
    var requestCounter = 0
    /// Whether the agent reports turn lifecycles (`msg_lifecycle_v1`); nil until it says (a new process).
    var lifecycle: Bool?
    /// The running total cost the process reported last (the CLI's `total_cost_usd` counts from the process's start).
    var processCost: Double = 0
    /// Whether the process has begun a turn (a lost session is reported before any).
    var processBeganTurn = false
    /// What the last `task_notification` said, to name the agent's own turn that follows it.
    var notification: String?
    /// How many times each turn was sent (a turn sent again gets a new uuid).
    var sends: [String: Int] = [:]
    let makeID: @Sendable (String) -> String

    /// - Parameters:
    ///   - queued: turns left `queued` by an earlier server, in order.
    ///   - makeID: a fresh id with the given prefix (`t` turn, `m` message, `a` approval, `r` session rule).
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

    /// No turn running (ours or the agent's own) and none queued.
    public var isIdle: Bool { current == nil && agentTurn == nil && queue.isEmpty }
    /// Our turn given to the agent, if any.
    public var currentTurnID: String? { current?.turn.id }
    /// The turn the agent started by itself and is running, if any.
    public var agentTurnID: String? { agentTurn?.turn.id }
    public var queuedTurnIDs: [String] { queue.map(\.turn.id) }
    public var pendingApprovalIDs: [String] { ((current?.pending.keys).map(Array.init) ?? []) + ((agentTurn?.pending.keys).map(Array.init) ?? []) }

    // MARK: - Requests

    /// A message from a person. Returns its turn and its place in the queue (0 = sent now).
    public mutating func send(text: String, mode: SendMode, now: Date) -> (response: SendMessageResponse, actions: [Action]) {
        var actions: [Action] = []
        let stamp = Timestamp.format(now)
        let turn = Turn(id: makeID("t"), conversationId: conversation.id, text: text, state: .queued, createdAt: stamp)
        actions.append(.save(.turn(turn)))
        if mode == .steer, let slot = activeSlot {
            queue.insert(Queued(turn: turn, userMessageID: nil), at: 0)
            actions += requestInterrupt(slot, now: now, reason: "steered by a new message")
        } else {
            queue.append(Queued(turn: turn, userMessageID: nil))
        }
        actions += pump(now: now)
        // 0 when nothing runs before it (it starts as soon as the process is up), else its place behind the running turn.
        let position = queue.firstIndex { $0.turn.id == turn.id }.map { current == nil ? $0 : $0 + 1 } ?? 0
        actions += settle(now: now)
        return (SendMessageResponse(turnId: turn.id, queuedPosition: position), actions)
    }

    /// Interrupts the turn the agent is running (its own one first); the process stays.
    public mutating func interrupt(now: Date) throws(Refusal) -> (turnID: String, actions: [Action]) {
        guard let slot = activeSlot, let turn = self[slot] else { throw .noTurnRunning }
        var actions = requestInterrupt(slot, now: now, reason: "interrupted by the user")
        actions += settle(now: now)
        return (turn.turn.id, actions)
    }

    /// A new title or pin from a person.
    public mutating func update(_ change: (inout Conversation) -> Void, now: Date) -> [Action] {
        change(&conversation)
        conversation.updatedAt = Timestamp.format(now)
        return [.save(.conversation(conversation))]
    }

    // MARK: - The process

    public mutating func processStarted(now: Date) -> [Action] {
        if case .starting(let resumed) = process { process = .running(resumed: resumed) }
        lifecycle = nil
        processCost = 0
        processBeganTurn = false
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
            lastEnded = EndedTurn(turnID: turn.id, prompt: turn.text, reply: "", state: .error, error: turn.error, origin: turn.origin)
        }
        actions += settle(now: now)
        return actions
    }

    /// The agent process exited (expected or not). `stderr` is the end of what it wrote there.
    public mutating func processExited(_ exit: ChildProcess.Exit, stderr: String, now: Date) -> [Action] {
        let previous = process
        process = .stopped
        var actions: [Action] = []
        let reason = Self.lastLines(stderr)
        if agentTurn != nil {
            let message = "\(conversation.backend) exited during its own turn (\(exit))" + (reason.isEmpty ? "" : ": \(reason)")
            actions += endTurn(.agent, state: .error, result: nil, error: message, now: now)
        }
        if let current {
            if case .running(resumed: true) = previous, !current.sawOutput, Self.isLostSession(stderr) {
                // An agent that reports a lost session only on stderr (older CLIs).
                actions += continueInNewSession(reason: reason, now: now)
            } else if !current.started && !current.sawOutput && lifecycle == true {
                // The agent had not begun it: send it again to the next process, nothing lost.
                queue.insert(Queued(turn: current.turn, userMessageID: current.userMessageID), at: 0)
                self.current = nil
            } else if current.interruptRequested != nil {
                actions += endTurn(.ours, state: .interrupted, result: nil, error: nil, now: now)
            } else {
                let message = "\(conversation.backend) exited during the turn (\(exit))" + (reason.isEmpty ? "" : ": \(reason)")
                actions += endTurn(.ours, state: .error, result: nil, error: message, now: now)
            }
        }
        actions += pump(now: now)
        actions += settle(now: now)
        return actions
    }

    /// Call about once a second: stall reports, interrupts that did not end, idle processes.
    public mutating func tick(now: Date) -> [Action] {
        var actions: [Action] = []
        if let slot = activeSlot, var turn = self[slot] {
            if let asked = turn.interruptRequested, now.timeIntervalSince(asked) >= configuration.interruptGrace, process != .stopping,
                process != .stopped
            {
                process = .stopping
                actions.append(.terminate)
            }
            if turn.pending.isEmpty, !turn.stalled, now.timeIntervalSince(turn.lastOutput) >= configuration.stallAfter {
                turn.stalled = true
                self[slot] = turn
                actions += settle(now: now, silentSecs: Int(now.timeIntervalSince(turn.lastOutput)))
                return actions
            }
        } else if queue.isEmpty, case .running = process, let idleSince, now.timeIntervalSince(idleSince) >= configuration.idleStopAfter {
            process = .stopping
            actions.append(.terminate)
        }
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
        conversation.retry = nil
        actions += pump(now: now)
        actions += settle(now: now)
        return actions
    }

    // MARK: - Slots

    /// The turn whose output the agent is producing: its own one, else ours once it began (or when the agent does not
    /// report lifecycles, ours as soon as it was sent).
    var runningSlot: Slot? {
        if agentTurn != nil { return .agent }
        if let current, current.started || lifecycle != true { return .ours }
        return nil
    }

    /// The running turn, else our turn waiting for the agent to begin it.
    var activeSlot: Slot? {
        runningSlot ?? (current != nil ? .ours : nil)
    }

    subscript(slot: Slot) -> Current? {
        get { slot == .ours ? current : agentTurn }
        set {
            if slot == .ours { current = newValue } else { agentTurn = newValue }
        }
    }
}
