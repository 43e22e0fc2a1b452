import Foundation
import RalphAPI

/// One conversation as a value: the chat driver (``ConversationMachine``) and its auto-reply loop
/// (``AutoReplyMachine``) behind one set of inputs, answering each with ONE ordered list of ``Action``s.
///
/// The two machines talk to each other here, in the same step, never through the server: a turn the chat machine
/// ends is told to the loop at once, and the prompt the loop decides on is given to the chat machine at once. So the
/// server's worker only carries out actions — it never reads events back to decide what the loop hears, and the loop
/// never calls back into the chat service. No I/O, no clock: dates are passed in, like in the two machines.
public struct ConversationCore: Sendable {
    public enum Action: Sendable, Hashable {
        /// Start the agent process (`--resume <id>` when given). Answer with ``processStarted(now:)`` or
        /// ``processFailedToStart(_:now:)``.
        case spawn(resumeSessionID: String?)
        /// Tell the agent process something on its stdin.
        case send(AgentCommand)
        /// Stop the agent process; its exit comes back as ``processExited(_:stderr:now:)``.
        case terminate
        /// Persist a row, in the step's one transaction.
        case save(ConversationMachine.ChatRecord)
        /// Persist the auto-reply loop (its settings and whole state), in the step's transaction.
        case saveLoop(AutoReplyMachine)
        /// Persist (numbered), then publish on the conversation's stream.
        case emit(ChatEvent)
        /// Tell people on the global stream about the loop (showstopper, stuck, error, limit, completion).
        case notice(AutoReplyProgress)
        /// Ask the judge about `reply` (`task` is the prompt it answers); answer with
        /// ``judged(confidence:nextPrompt:now:)``.
        case judge(reply: String, task: String?, settings: JudgeSettings)
    }

    /// A person's control of the auto-reply loop.
    public enum LoopControl: Sendable, Hashable {
        /// Start, with new settings first when given.
        case start(AutoReplySettings?)
        case pause, resume, stop
        /// Replace the settings (a running loop uses the new limits at once).
        case settings(AutoReplySettings)
    }

    public private(set) var chat: ConversationMachine
    public private(set) var autoReply: AutoReplyMachine

    public init(chat: ConversationMachine, autoReply: AutoReplyMachine) {
        self.chat = chat
        self.autoReply = autoReply
    }

    // MARK: - Inputs

    /// A step of the chat machine (a request, a line of the agent, the process); what it ends or asks is routed to
    /// the loop in the same step.
    public mutating func step<R, E: Error>(now: Date, _ body: (inout ConversationMachine) throws(E) -> (R, [ConversationMachine.Action])) throws(E) -> (
        R, [Action]
    ) {
        let (result, actions) = try body(&chat)
        return (result, absorb(actions, now: now))
    }

    /// A message from a person: queued or steered like any message, and a running loop takes note of it (it pauses
    /// unless overrides are allowed).
    public mutating func send(text: String, mode: SendMode, now: Date) -> (response: SendMessageResponse, actions: [Action]) {
        let (response, actions) = step(now: now) { chat in chat.send(text: text, mode: mode, now: now) }
        return (response, actions + loop(autoReply.observe(.manualMessage(now: now)), now: now))
    }

    /// A line the agent printed, decoded.
    public mutating func agentOutput(_ output: AgentEvent, now: Date) -> [Action] {
        step(now: now) { chat in ((), chat.handle(output, now: now)) }.1
    }

    public mutating func processStarted(now: Date) -> [Action] {
        step(now: now) { chat in ((), chat.processStarted(now: now)) }.1
    }

    public mutating func processFailedToStart(_ reason: String, now: Date) -> [Action] {
        step(now: now) { chat in ((), chat.processFailedToStart(reason, now: now)) }.1
    }

    public mutating func processExited(_ exit: ChildProcess.Exit, stderr: String, now: Date) -> [Action] {
        step(now: now) { chat in ((), chat.processExited(exit, stderr: stderr, now: now)) }.1
    }

    /// About once a second: the chat machine's stall reports and idle stops, the loop's judge timeout.
    public mutating func tick(now: Date) -> [Action] {
        let chatActions = step(now: now) { chat in ((), chat.tick(now: now)) }.1
        return chatActions + loop(autoReply.observe(.tick(now: now)), now: now)
    }

    /// After a restart: settles what the previous server left (see ``ConversationMachine/recover``).
    public mutating func recover(interrupted turns: [Turn], unstoredText: [String: String], pending approvals: [Approval], now: Date) -> [Action] {
        step(now: now) { chat in ((), chat.recover(interrupted: turns, unstoredText: unstoredText, pending: approvals, now: now)) }.1
    }

    /// After a restart: a loop that was running goes on as paused, a person decides when it continues.
    public mutating func restarted(now: Date) -> [Action] {
        loop(autoReply.observe(.restarted(now: now)), now: now)
    }

    /// The judge's answer to ``Action/judge(reply:task:settings:)``; nil confidence when it failed (the rules decide).
    public mutating func judged(confidence: Double?, nextPrompt: String?, now: Date) -> [Action] {
        loop(autoReply.observe(.judged(confidence: confidence, nextPrompt: nextPrompt, now: now)), now: now)
    }

    /// A person's control of the loop. The loop is stored whatever it did (new settings change no progress).
    public mutating func control(_ control: LoopControl, now: Date) throws(AutoReplyMachine.Refusal) -> [Action] {
        let idle = chat.isIdle
        var decided: [AutoReplyMachine.Action]
        switch control {
        case .start(let settings):
            decided = []
            if let settings { decided += try autoReply.handle(.updateSettings(settings, now: now)) }
            decided += try autoReply.handle(.start(now: now, conversationIdle: idle))
        case .pause: decided = try autoReply.handle(.pause(now: now))
        case .resume: decided = try autoReply.handle(.resume(now: now, conversationIdle: idle))
        case .stop: decided = try autoReply.handle(.stop(now: now))
        case .settings(let settings): decided = try autoReply.handle(.updateSettings(settings, now: now))
        }
        let stored = decided.contains { if case .progress = $0 { true } else { false } }
        let actions = loop(decided, now: now)
        return stored ? actions : actions + [.saveLoop(autoReply)]
    }

    /// The stored loop could not be read and the server started this one over (stopped): it is stored as it is now,
    /// shown on the stream, and `reason` is told to the people in the conversation as a recoverable `error` event,
    /// so a reset is never silent.
    public mutating func loopReset(_ reason: String, now: Date) -> [Action] {
        [.saveLoop(autoReply), .emit(.autoReply(autoReply.progress(now: now))), .emit(.error(ChatErrorEvent(turnId: nil, message: reason, recoverable: true)))]
    }

    // MARK: - Routing between the two machines

    /// The chat machine's actions as the core's, followed by what the loop does about the events among them.
    mutating func absorb(_ chatActions: [ConversationMachine.Action], now: Date) -> [Action] {
        var actions = chatActions.map(Action.init)
        guard autoReply.state != .stopped else { return actions }
        for case .emit(let event) in chatActions {
            guard let observation = observation(of: event, now: now) else { continue }
            actions += loop(autoReply.observe(observation), now: now)
        }
        return actions
    }

    /// What an event of the chat machine means to the loop, if anything.
    func observation(of event: ChatEvent, now: Date) -> AutoReplyMachine.Observation? {
        // Turns the agent ran by itself are not the loop's: the loop waits for the answers to its own prompts.
        let ended = chat.lastEnded.flatMap { $0.origin == .user ? $0 : nil }
        switch event {
        case .complete(let e) where ended?.turnID == e.turnId:
            return .turnEnded(reply: ended?.reply ?? "", failed: false, error: nil, now: now)
        case .error(let e) where e.turnId != nil && ended?.turnID == e.turnId:
            return .turnEnded(reply: ended?.reply ?? "", failed: true, error: e.message, now: now)
        case .permissionRequired:
            return .approvalPending(now: now)
        case .permissionResolved where chat.pendingApprovalIDs.isEmpty:
            return .approvalsResolved(now: now)
        default:
            return nil
        }
    }

    /// The loop's actions as the core's: progress is stored with the loop and announced; a prompt goes to the chat
    /// machine as a queued message; without a judge configured (any more), the rules decide at once.
    mutating func loop(_ decided: [AutoReplyMachine.Action], now: Date) -> [Action] {
        var actions: [Action] = []
        for action in decided {
            switch action {
            case .progress(let progress): actions += [.saveLoop(autoReply), .emit(.autoReply(progress))]
            case .notice(let progress): actions.append(.notice(progress))
            case .send, .judge: break
            }
        }
        for action in decided {
            switch action {
            case .send(let prompt):
                actions += step(now: now) { chat in chat.send(text: prompt, mode: .queue, now: now) }.1
            case .judge(let reply):
                if let settings = autoReply.settings.judge {
                    actions.append(.judge(reply: reply, task: chat.lastEnded?.prompt, settings: settings))
                } else {
                    actions += judged(confidence: nil, nextPrompt: nil, now: now)
                }
            case .progress, .notice:
                break
            }
        }
        return actions
    }
}

extension ConversationCore.Action {
    init(_ action: ConversationMachine.Action) {
        switch action {
        case .spawn(let session): self = .spawn(resumeSessionID: session)
        case .send(let command): self = .send(command)
        case .terminate: self = .terminate
        case .save(let record): self = .save(record)
        case .emit(let event): self = .emit(event)
        }
    }
}
