import AgentRunner
import Foundation
import Logging
import NIOCore
import RalphAPI
import Synchronization

/// Runs one conversation: owns its ``ConversationCore`` (the chat machine and its auto-reply loop), feeds it every
/// input one at a time from a mailbox, and carries out the one list of actions each input returns — persist (one
/// transaction per step), publish, then talk to the agent process and the judge.
///
/// One input at a time is what keeps event sequence numbers, stored rows and what the agent is told in one order.
/// The worker decides nothing: which prompt the loop sends, or what it hears, is the core's business.
///
/// A step that cannot be stored stops the conversation (``Failure``): the machine has already moved on, so it is no
/// longer in step with the database. Its agent process is stopped, its live streams end with an `error` event (not
/// stored: the database is what failed) and every later request is refused with that reason; the next server start settles
/// the conversation from what was stored, like after a crash.
final class ConversationWorker: Sendable {
    typealias Job = @Sendable (inout ConversationCore) async -> Void

    /// Why the conversation stopped taking input.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var reason: String
        var description: String { "the conversation stopped because a step could not be stored (\(reason)); restart the server to recover it" }
    }

    struct ProcessSlot: Sendable {
        var session: (any AgentSession)?
        var generation = 0
    }

    let id: String
    private let mailbox: AsyncStream<Job>.Continuation
    private let loop: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let slot = Mutex(ProcessSlot())
    /// Output readers, terminations and judge calls: cancelled and awaited on shutdown.
    private let tasks = OwnedTasks()
    private let failure = Mutex<Failure?>(nil)
    private let context: ChatContext
    private let options: AgentSpawnOptions
    /// The conversation's backend (its adapter starts the agent process).
    let backend: String
    /// The diffs its agent's file edits carry.
    private let diffs: EditDiffs

    init(core: ConversationCore, context: ChatContext) {
        self.id = core.chat.conversation.id
        self.context = context
        let conversation = core.chat.conversation
        self.options = AgentSpawnOptions(cwd: conversation.cwd, model: conversation.model, permissionMode: conversation.permissionMode)
        self.backend = conversation.backend
        self.diffs = EditDiffs(roots: context.roots, cwd: conversation.cwd)
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        self.mailbox = continuation
        // The loop outlives the request that made the worker: it must not log every later step under that request's id
        // (a step that is a request's work says so itself, see `perform`).
        let task = RequestTrace.$id.withValue(nil) {
            Task {
                var core = core
                for await job in stream {
                    await job(&core)
                }
            }
        }
        loop.withLock { $0 = task }
    }

    /// Set once a step could not be stored.
    var stopped: Failure? { failure.withLock { $0 } }

    // MARK: - Submitting work

    /// Runs `body` on the core in turn, carries out its actions, and returns its result once they are stored and
    /// published. Refused with ``Failure`` once the conversation stopped.
    func perform<R: Sendable>(_ body: @escaping @Sendable (inout ConversationCore, Date) throws -> (R, [ConversationCore.Action])) async throws -> R {
        // The step is the request's work: it runs (and what it starts logs) under the request's id.
        let trace = RequestTrace.id
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let accepted = mailbox.yield { [self] core in
                await RequestTrace.$id.withValue(trace) {
                    do {
                        if let failure = stopped { throw failure }
                        let (result, actions) = try body(&core, Date())
                        try await execute(actions, conversation: core.chat.conversation)
                        continuation.resume(returning: result)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
            if case .terminated = accepted { continuation.resume(throwing: APIError.sessionNotFound("conversation \(id) was deleted")) }
        }
    }

    /// Reads the core in turn (after everything queued before).
    func read<R: Sendable>(_ body: @escaping @Sendable (ConversationCore, Date) -> R) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let accepted = mailbox.yield { core in continuation.resume(returning: body(core, Date())) }
            if case .terminated = accepted { continuation.resume(throwing: APIError.sessionNotFound("conversation \(id) was deleted")) }
        }
    }

    /// Queues an input without waiting for it (agent output, process exits, ticks, the judge's answer). Once the
    /// conversation stopped, inputs are dropped (it was said once, loudly, when it stopped).
    func enqueue(_ body: @escaping @Sendable (inout ConversationCore, Date) -> [ConversationCore.Action]) {
        mailbox.yield { [self] core in
            guard stopped == nil else { return }
            do {
                let actions = body(&core, Date())
                try await execute(actions, conversation: core.chat.conversation)
            } catch {
                // `execute` stopped the conversation: logged, announced on its streams, refused from now on.
            }
        }
    }

    /// A person allowed the call `toolUseID`: if it edits files, the diff it shows once it ran starts from the files as
    /// they are now.
    func editAllowed(toolUseID: String, tool: String, input: JSONValue) async {
        await diffs.snapshot(toolUseID: toolUseID, tool: tool, input: input)
    }

    /// Queues a line of the agent's output. File edits get their diffs first (files are read on the thread pool), in
    /// the mailbox's order, so the output stays in the order the agent wrote it.
    private func enqueue(agentOutput event: AgentEvent) {
        mailbox.yield { [self] core in
            guard stopped == nil else { return }
            let event = await diffs.enrich(event)
            do {
                let actions = core.agentOutput(event, now: Date())
                try await execute(actions, conversation: core.chat.conversation)
            } catch {
                // `execute` stopped the conversation: logged, announced on its streams, refused from now on.
            }
        }
    }

    /// Stops the agent process, the mailbox and every task the worker started (the conversation is deleted, or the
    /// server stops).
    func shutdown(grace: Duration) async {
        // Inputs already queued are carried out (they may start a process), then the process stops, then the
        // readers, which end with its output, and whatever else is still running.
        mailbox.finish()
        let task = loop.withLock { $0 }
        await task?.value
        let session = slot.withLock { slot -> (any AgentSession)? in
            defer { slot.session = nil }
            return slot.session
        }
        if let session { _ = await session.terminate(grace: grace) }
        await tasks.shutdown()
    }

    // MARK: - Carrying out actions

    /// Stores the step in one transaction and publishes it, then carries out what touches the agent and the judge.
    /// A step that cannot be stored stops the conversation (and the error is thrown to whoever asked).
    private func execute(_ actions: [ConversationCore.Action], conversation current: Conversation) async throws {
        guard !actions.isEmpty else { return }
        var writes: [ChatWrite] = []
        var approvals: [Approval] = []
        var turns: [Turn] = []
        var conversation: Conversation?
        var notices: [AutoReplyProgress] = []
        var notifications: [NotificationEvent] = []
        do {
            for action in actions {
                switch action {
                case .save(.conversation(let c)):
                    writes.append(.conversation(c))
                    conversation = c
                case .save(.message(let m)): writes.append(.message(m))
                case .save(.turn(let t)):
                    writes.append(.turn(t))
                    turns.append(t)
                case .save(.approval(let a)):
                    writes.append(.approval(a))
                    approvals.append(a)
                case .saveLoop(let machine): writes.append(try autoReplyRow(machine))
                case .emit(let event):
                    writes.append(.event(conversationID: id, name: event.name, data: Array(try context.encoder.encode(event))))
                case .notice(let progress): notices.append(progress)
                case .spawn, .send, .terminate, .judge: break
                }
            }
            // What this step tells people is recorded with it: both stored or neither.
            notifications = ChatNotificationRules.events(for: actions, conversation: conversation ?? current)
            writes += notifications.map(ChatWrite.notification)
            if !writes.isEmpty {
                let stored = try await context.store.commit(writes)
                context.chatHub.publish(conversationID: id, events: stored.map { ($0.seq, SSEFrame.event(id: String($0.seq), name: $0.name, data: $0.data)) })
            }
        } catch {
            let failure = Failure(reason: "\(error)")
            stop(failure)
            throw failure
        }
        if !notifications.isEmpty { context.notificationsRecorded() }
        if let metrics = context.metrics {
            // Counted once stored: a step that could not be stored did not happen.
            for turn in turns { metrics.turnStored(turn, backend: current.backend) }
            for approval in approvals { metrics.approvalStored(approval) }
        }
        for approval in approvals { context.eventHub.approvalChanged(approval) }
        if let conversation { context.eventHub.publishConversation(name: ChatEventName.conversationUpdated, value: conversation) }
        for notice in notices { context.eventHub.publishConversation(name: ChatEventName.autoReplyNotice, value: notice) }
        for action in actions {
            switch action {
            case .spawn(let session): await spawn(resume: session)
            case .send(let command): send(command)
            case .terminate:
                if let session = slot.withLock({ $0.session }) {
                    let grace = context.terminateGrace
                    // Its exit comes back through the output reader.
                    tasks.spawn { _ = await session.terminate(grace: grace) }
                }
            case .judge(let reply, let task, let settings): judge(reply: reply, task: task, settings: settings)
            case .save, .saveLoop, .emit, .notice: break
            }
        }
    }

    /// The conversation stops taking input: logged, its agent stopped, and said on its live streams.
    private func stop(_ failure: Failure) {
        let first = self.failure.withLock { current -> Bool in
            guard current == nil else { return false }
            current = failure
            return true
        }
        guard first else { return }
        context.logger.error("conversation \(id): \(failure)")
        let event = ChatEvent.error(ChatErrorEvent(turnId: nil, message: failure.description, recoverable: false))
        do {
            // The conversation's streams end with it. No `id:`: it is not stored, so it takes no place in the sequence
            // a client resumes from; a client that reconnects is refused with the same reason.
            let frame = SSEFrame.event(id: nil, name: event.name, data: Array(try context.encoder.encode(event)))
            context.chatHub.conversations.remove(id) { _ in frame }
        } catch {
            context.logger.error("conversation \(id): could not encode the error event for its streams: \(error)")
        }
        if let session = slot.withLock({ $0.session }) {
            let grace = context.terminateGrace
            tasks.spawn { _ = await session.terminate(grace: grace) }
        }
    }

    /// The loop's row: its settings and its whole state.
    func autoReplyRow(_ machine: AutoReplyMachine) throws -> ChatWrite {
        .autoReply(conversationID: id, settings: Array(try WireJSON.encode(machine.settings)), loop: Array(try WireJSON.encode(machine)))
    }

    /// Asks the judge in the background; its verdict (or its failure, then the rules decide) comes back as an input.
    private func judge(reply: String, task: String?, settings: JudgeSettings) {
        let judge = AutoReplyJudge(settings: settings, environment: context.environment)
        let logger = context.logger
        let conversationID = id
        tasks.spawn { [self] in
            do {
                let verdict = try await judge.judge(reply: reply, task: task, history: [])
                enqueue { core, now in core.judged(confidence: verdict.confidence, nextPrompt: verdict.nextPrompt, now: now) }
            } catch {
                logger.notice("conversation \(conversationID): the auto-reply judge failed (\(error)); the rules decide")
                enqueue { core, now in core.judged(confidence: nil, nextPrompt: nil, now: now) }
            }
        }
    }

    private func send(_ command: AgentCommand) {
        guard let session = slot.withLock({ $0.session }) else {
            context.logger.warning("conversation \(id): no process to send \(command) to")
            return
        }
        session.send(command)
    }

    private func spawn(resume sessionID: String?) async {
        var options = options
        options.resumeSessionID = sessionID
        let session: any AgentSession
        guard let adapter = context.adapters[backend] else {
            let reason = "this server has no backend named '\(backend)' (it runs \(context.adapters.keys.sorted().joined(separator: ", ")))"
            enqueue { core, now in core.processFailedToStart(reason, now: now) }
            return
        }
        do {
            session = try adapter.start(options, environment: context.environment)
        } catch {
            context.metrics?.agentStarted(backend: backend, succeeded: false)
            let reason = error.description
            enqueue { core, now in core.processFailedToStart(reason, now: now) }
            return
        }
        let generation = slot.withLock { slot -> Int in
            slot.generation += 1
            slot.session = session
            return slot.generation
        }
        enqueue { core, now in core.processStarted(now: now) }
        let metrics = context.metrics
        let backendName = backend
        metrics?.agentStarted(backend: backendName, succeeded: true)
        let logger = context.logger
        let conversationID = id
        let name = adapter.name
        logger.info("conversation \(conversationID): \(name) started\(sessionID.map { ", resuming session \($0)" } ?? "")")
        let started = tasks.spawn { [self] in
            await session.readEvents { event in
                if case .notJSON(let text) = event {
                    logger.debug("conversation \(conversationID): skipped a line that is not JSON: \(text.prefix(200))")
                    return
                }
                enqueue(agentOutput: event)
            }
            let exit = await session.waitForExit()
            metrics?.agentExited(backend: backendName, exit)
            let stderr = session.stderrTail
            let current = slot.withLock { slot -> Bool in
                guard slot.generation == generation else { return false }
                slot.session = nil
                return true
            }
            guard current else { return }
            logger.info("conversation \(conversationID): \(name) exited (\(exit))")
            enqueue { core, now in core.processExited(exit, stderr: stderr, now: now) }
        }
        if !started {
            // Shut down meanwhile (the loop is drained first, so this is a guard): the process must not outlive it.
            logger.notice("conversation \(conversationID): \(name) started while the worker was shutting down; stopping it")
            slot.withLock { if $0.generation == generation { $0.session = nil } }
            _ = await session.terminate(grace: context.terminateGrace)
        }
    }
}
