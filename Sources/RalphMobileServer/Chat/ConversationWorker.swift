import AgentRunner
import Foundation
import Logging
import NIOCore
import RalphAPI
import Synchronization

/// Runs one conversation: owns its ``ConversationMachine``, feeds it every input one at a time from a mailbox, and
/// carries out what it returns — persist (one transaction per step), publish, then talk to the agent process.
///
/// One input at a time is what keeps event sequence numbers, stored rows and what the agent is told in one order.
/// The conversation's auto-reply loop (``AutoReplyMachine``) lives here too: it hears every turn that ends and every
/// approval, and what it decides (a next prompt, a pause, a stop) goes through the same mailbox.
final class ConversationWorker: Sendable {
    /// Everything the worker's loop owns.
    struct State: Sendable {
        var chat: ConversationMachine
        var autoReply: AutoReplyMachine
    }

    typealias Job = @Sendable (inout State) async -> Void

    struct ProcessSlot: Sendable {
        var process: AgentProcess?
        var generation = 0
    }

    let id: String
    private let mailbox: AsyncStream<Job>.Continuation
    private let loop: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let slot = Mutex(ProcessSlot())
    private let context: ChatContext
    private let options: SpawnOptions

    init(machine: ConversationMachine, autoReply: AutoReplyMachine, context: ChatContext) {
        self.id = machine.conversation.id
        self.context = context
        let conversation = machine.conversation
        self.options = SpawnOptions(cwd: conversation.cwd, model: conversation.model, permissionMode: conversation.permissionMode)
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        self.mailbox = continuation
        let task = Task {
            var state = State(chat: machine, autoReply: autoReply)
            for await job in stream {
                await job(&state)
            }
        }
        loop.withLock { $0 = task }
    }

    // MARK: - Submitting work

    /// Runs `body` on the machine in turn, carries out its actions, and returns its result once they are stored and
    /// published.
    func perform<R: Sendable>(
        _ body: @escaping @Sendable (inout ConversationMachine, Date) throws(ConversationMachine.Refusal) -> (R, [ConversationMachine.Action])
    ) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let accepted = mailbox.yield { [self] state in
                do {
                    let (result, actions) = try body(&state.chat, Date())
                    try await execute(actions, &state)
                    continuation.resume(returning: result)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            if case .terminated = accepted { continuation.resume(throwing: APIError.sessionNotFound("conversation \(id) was deleted")) }
        }
    }

    /// Runs `body` on the auto-reply loop in turn (it may look at the conversation), carries out its actions.
    func performAutoReply<R: Sendable>(
        _ body: @escaping @Sendable (inout AutoReplyMachine, ConversationMachine, Date) throws(AutoReplyMachine.Refusal) -> (R, [AutoReplyMachine.Action])
    ) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let accepted = mailbox.yield { [self] state in
                do {
                    let (result, actions) = try body(&state.autoReply, state.chat, Date())
                    try await executeAutoReply(actions, &state)
                    if !actions.contains(where: { if case .progress = $0 { true } else { false } }) {
                        // Settings changed without a progress step: store the loop anyway.
                        _ = try await context.store.commit([try autoReplyRow(state.autoReply)])
                    }
                    continuation.resume(returning: result)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            if case .terminated = accepted { continuation.resume(throwing: APIError.sessionNotFound("conversation \(id) was deleted")) }
        }
    }

    /// Reads the state in turn (after everything queued before).
    func read<R: Sendable>(_ body: @escaping @Sendable (State, Date) -> R) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let accepted = mailbox.yield { state in continuation.resume(returning: body(state, Date())) }
            if case .terminated = accepted { continuation.resume(throwing: APIError.sessionNotFound("conversation \(id) was deleted")) }
        }
    }

    /// Queues an input without waiting for it.
    func enqueue(_ body: @escaping @Sendable (inout ConversationMachine, Date) -> [ConversationMachine.Action]) {
        mailbox.yield { [self] state in
            let actions = body(&state.chat, Date())
            do {
                try await execute(actions, &state)
            } catch {
                context.logger.error("conversation \(id): could not store a step: \(error)")
            }
        }
    }

    /// Queues an input of the auto-reply loop without waiting for it; refusals are logged.
    func enqueueAutoReply(_ input: AutoReplyMachine.Input) {
        mailbox.yield { [self] state in
            do {
                let actions = try state.autoReply.handle(input)
                try await executeAutoReply(actions, &state)
            } catch {
                context.logger.debug("conversation \(id): auto-reply input \(input) not applied: \(error)")
            }
        }
    }

    /// Stops the agent process and the mailbox (the conversation is deleted, or the server stops).
    func shutdown(grace: Duration) async {
        mailbox.finish()
        let process = slot.withLock { slot -> AgentProcess? in
            defer { slot.process = nil }
            return slot.process
        }
        if let process { _ = await process.terminate(grace: grace) }
        let task = loop.withLock { $0 }
        await task?.value
    }

    // MARK: - Carrying out actions

    private func execute(_ actions: [ConversationMachine.Action], _ state: inout State) async throws {
        guard !actions.isEmpty else { return }
        var writes: [ChatWrite] = []
        var approvals: [Approval] = []
        var conversation: Conversation?
        for action in actions {
            switch action {
            case .save(.conversation(let c)):
                writes.append(.conversation(c))
                conversation = c
            case .save(.message(let m)): writes.append(.message(m))
            case .save(.turn(let t)): writes.append(.turn(t))
            case .save(.approval(let a)):
                writes.append(.approval(a))
                approvals.append(a)
            case .emit(let event):
                writes.append(.event(conversationID: id, name: event.name, data: Array(try context.encoder.encode(event))))
            case .spawn, .send, .terminate:
                break
            }
        }
        if !writes.isEmpty {
            try await commitAndPublish(writes)
            for approval in approvals { context.eventHub.approvalChanged(approval) }
            if let conversation { context.eventHub.publishConversation(name: ChatEventName.conversationUpdated, value: conversation) }
        }
        for action in actions {
            switch action {
            case .spawn(let session): spawn(resume: session)
            case .send(let command): send(command)
            case .terminate:
                if let process = slot.withLock({ $0.process }) {
                    let grace = context.terminateGrace
                    // Its exit comes back through the output reader.
                    Task { _ = await process.terminate(grace: grace) }
                }
            case .save, .emit:
                break
            }
        }
        try await feedAutoReply(actions, &state)
    }

    /// Stores a step in one transaction, then sends its events (now numbered) to the conversation's streams.
    private func commitAndPublish(_ writes: [ChatWrite]) async throws {
        let stored = try await context.store.commit(writes)
        context.chatHub.publish(conversationID: id, events: stored.map { ($0.seq, SSEFrame.event(id: String($0.seq), name: $0.name, data: $0.data)) })
    }

    // MARK: - Auto-reply

    /// Tells the auto-reply loop what happened in the conversation: turns that ended, approvals.
    private func feedAutoReply(_ actions: [ConversationMachine.Action], _ state: inout State) async throws {
        guard state.autoReply.state != .stopped else { return }
        let now = Date()
        for action in actions {
            guard case .emit(let event) = action else { continue }
            let input: AutoReplyMachine.Input?
            // Turns the agent ran by itself are not the loop's: the loop waits for the answers to its own prompts.
            let ended = state.chat.lastEnded.flatMap { $0.origin == .user ? $0 : nil }
            switch event {
            case .complete(let e) where ended?.turnID == e.turnId:
                input = .turnEnded(reply: ended?.reply ?? "", failed: false, error: nil, now: now)
            case .error(let e) where e.turnId != nil && ended?.turnID == e.turnId:
                input = .turnEnded(reply: ended?.reply ?? "", failed: true, error: e.message, now: now)
            case .permissionRequired:
                input = .approvalPending(now: now)
            case .permissionResolved where state.chat.pendingApprovalIDs.isEmpty:
                input = .approvalsResolved(now: now)
            default:
                input = nil
            }
            guard let input, let decided = try? state.autoReply.handle(input) else { continue }
            try await executeAutoReply(decided, &state)
        }
    }

    /// Carries out the loop's actions: progress is stored with the loop and announced; a prompt is sent as a message.
    private func executeAutoReply(_ actions: [AutoReplyMachine.Action], _ state: inout State) async throws {
        guard !actions.isEmpty else { return }
        var writes: [ChatWrite] = []
        var notices: [AutoReplyProgress] = []
        for action in actions {
            switch action {
            case .progress(let progress):
                writes.append(try autoReplyRow(state.autoReply))
                writes.append(.event(conversationID: id, name: ChatEventName.autoReply, data: Array(try context.encoder.encode(.autoReply(progress)))))
            case .notice(let progress):
                notices.append(progress)
            case .send, .judge:
                break
            }
        }
        if !writes.isEmpty { try await commitAndPublish(writes) }
        for notice in notices { context.eventHub.publishConversation(name: ChatEventName.autoReplyNotice, value: notice) }
        for action in actions {
            switch action {
            case .send(let prompt):
                let (_, chatActions) = state.chat.send(text: prompt, mode: .queue, now: Date())
                try await execute(chatActions, &state)
            case .judge(let reply):
                judge(reply: reply, prompt: state.chat.lastEnded?.prompt, settings: state.autoReply.settings)
            case .progress, .notice:
                break
            }
        }
    }

    /// The loop's row: its settings and its whole state.
    func autoReplyRow(_ machine: AutoReplyMachine) throws -> ChatWrite {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .autoReply(conversationID: id, settings: Array(try encoder.encode(machine.settings)), loop: Array(try encoder.encode(machine)))
    }

    /// Asks the judge in the background; its verdict (or its failure, then the rules decide) comes back as an input.
    private func judge(reply: String, prompt: String?, settings: AutoReplySettings) {
        guard let judgeSettings = settings.judge else {
            enqueueAutoReply(.judged(confidence: nil, nextPrompt: nil, now: Date()))
            return
        }
        let judge = AutoReplyJudge(settings: judgeSettings, environment: context.environment)
        let logger = context.logger
        let conversationID = id
        Task { [self] in
            do {
                let verdict = try await judge.judge(reply: reply, task: prompt, history: [])
                enqueueAutoReply(.judged(confidence: verdict.confidence, nextPrompt: verdict.nextPrompt, now: Date()))
            } catch {
                logger.notice("conversation \(conversationID): the auto-reply judge failed (\(error)); the rules decide")
                enqueueAutoReply(.judged(confidence: nil, nextPrompt: nil, now: Date()))
            }
        }
    }

    private func send(_ command: AgentCommand) {
        guard let process = slot.withLock({ $0.process }) else {
            context.logger.warning("conversation \(id): no process to send \(command) to")
            return
        }
        let line: [UInt8] =
            switch command {
            case .user(let text, let id): ClaudeInput.user(text: text, uuid: id)
            case .allow(let requestID, let input): ClaudeInput.allow(requestID: requestID, input: input)
            case .deny(let requestID, let message, let interrupt): ClaudeInput.deny(requestID: requestID, message: message, interrupt: interrupt)
            case .interrupt(let requestID): ClaudeInput.interrupt(requestID: requestID)
            }
        process.send(line)
    }

    private func spawn(resume session: String?) {
        let backend = context.backend
        var arguments = backend.arguments
        if let session { arguments += ["--resume", session] }
        if let model = options.model { arguments += ["--model", model] }
        // `default` is the CLI's own default: no flag (not every version lists it among the choices).
        if let mode = options.permissionMode, mode != "default" { arguments += ["--permission-mode", mode] }
        let process: AgentProcess
        do {
            process = try AgentProcess.start(
                executable: backend.command, arguments: arguments, workingDirectory: options.cwd, environment: context.environment
            )
        } catch {
            let reason = error.description
            enqueue { machine, now in machine.processFailedToStart(reason, now: now) }
            return
        }
        let generation = slot.withLock { slot -> Int in
            slot.generation += 1
            slot.process = process
            return slot.generation
        }
        enqueue { machine, now in machine.processStarted(now: now) }
        let logger = context.logger
        let conversationID = id
        Task { [self] in
            for await line in process.lines {
                let outputs = ClaudeStreamDecoder.decode(line: line)
                for output in outputs {
                    if case .notJSON(let text) = output {
                        logger.debug("conversation \(conversationID): skipped a line that is not JSON: \(text.prefix(200))")
                        continue
                    }
                    enqueue { machine, now in machine.handle(output, now: now) }
                }
            }
            let exit = await process.waitForExit()
            let stderr = process.stderrTail
            let current = slot.withLock { slot -> Bool in
                guard slot.generation == generation else { return false }
                slot.process = nil
                return true
            }
            guard current else { return }
            logger.info("conversation \(conversationID): \(backend.name) exited (\(exit))")
            enqueue { machine, now in machine.processExited(exit, stderr: stderr, now: now) }
        }
    }

    /// The working directory and flags of the conversation, fixed at creation.
    struct SpawnOptions: Sendable {
        var cwd: String
        var model: String?
        var permissionMode: String?
    }
}
