import AgentRunner
import Foundation
import Logging
import NIOCore
import RalphAPI
import RalphFiles
import Synchronization

/// Conversations: creating, listing and deleting them, and handing each request to the conversation's worker. Routes
/// talk to this service only (never to the store or the hub).
///
/// Startup recovery, readiness and shutdown are in `ChatService+Lifecycle.swift`, the auto-reply controls in
/// `ChatService+AutoReply.swift`, the event stream in `ChatService+Feed.swift`.
public final class ChatService: Sendable {
    public struct Configuration: Sendable {
        /// The agent CLIs conversations can use; the first is the default of a conversation that names none.
        public var backends: [ChatBackend]
        public var machine: ConversationMachine.Configuration
        public var terminateGrace: Duration = .seconds(5)
        public init(backends: [ChatBackend] = [.claude(), .codex()], machine: ConversationMachine.Configuration = .init()) {
            self.backends = backends
            self.machine = machine
        }

        /// The backend named `name`.
        func backend(_ name: String) -> ChatBackend? { backends.first { $0.name == name } }
    }

    let store: ChatStore
    let chatHub: ChatHub
    let roots: WorkspaceRoots
    let configuration: Configuration
    let context: ChatContext
    let workers = Mutex<[String: ConversationWorker]>([:])
    /// What each backend CLI says about itself, by backend name (asked at start, and again when a conversation wants
    /// one that could not be asked).
    let probes = Mutex<[String: Probe]>([:])
    /// Whether what the previous server left has been settled (requests wait until it has).
    let readiness = Mutex(Readiness.starting(waiters: []))
    /// Opened when recovery has settled (either way), for a wait that may give up (``healthStatus(patience:)``).
    let settled = StopLatch()
    /// Conversations whose recovery failed, with why: they refuse requests instead of running out of step.
    let unrecovered = Mutex<[String: String]>([:])
    /// Recovery, which runs in the background from ``startRecovery()``; awaited on shutdown.
    let tasks = OwnedTasks()
    let logger: Logger
    /// The host this server is: its conversations are stamped with it, and it runs only its own.
    let hostID: String?

    /// - Parameter notificationsRecorded: called after a step recorded notifications in its transaction (the
    ///   notifier's wake-up).
    init(
        store: ChatStore, chatHub: ChatHub, eventHub: EventHub, roots: WorkspaceRoots, configuration: Configuration, environment: [String: String],
        hostID: String? = nil, logger: Logger, metrics: ServerMetrics? = nil, notificationsRecorded: @escaping @Sendable () -> Void = {}
    ) {
        self.hostID = hostID
        self.store = store
        self.chatHub = chatHub
        self.roots = roots
        self.configuration = configuration
        self.logger = logger
        self.context = ChatContext(
            store: store, chatHub: chatHub, eventHub: eventHub, adapters: Dictionary(configuration.backends.map { ($0.name, $0.adapter) }, uniquingKeysWith: { first, _ in first }),
            environment: environment, roots: roots,
            terminateGrace: configuration.terminateGrace, logger: logger, encoder: ChatEventEncoder(),
            notificationsRecorded: notificationsRecorded, metrics: metrics
        )
    }

    // MARK: - Conversations

    func create(_ request: CreateConversationRequest) async throws(APIError) -> Conversation {
        let cwd: String
        switch roots.resolve(request.cwd, relativeTo: roots.paths.first ?? "/", kind: .directory) {
        case .success(let path): cwd = path
        case .failure(let error): throw .invalidPath("cwd: \(error)")
        }
        let backend = try await availableBackend(request.backend)
        let title = try Self.title(request.title) ?? ""
        if let model = request.model { try Self.flagValue(model, field: "model") }
        if let mode = request.permissionMode {
            // What this CLI accepts (its --help, else the modes known of it), and `default`, which means its own default.
            let modes = ["default"] + (await agent(backend.name)).permissionModes
            guard modes.contains(mode) else {
                throw .invalidBody("permission_mode must be one of \(modes.joined(separator: ", ")) (what \(backend.command) accepts)")
            }
        }
        let now = Timestamp.now()
        let conversation = Conversation(
            id: "c_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20), title: title, titleIsCustom: !title.isEmpty,
            cwd: cwd, backend: backend.name, model: request.model, permissionMode: request.permissionMode, createdAt: now, updatedAt: now, lastActivityAt: now,
            hostId: hostID
        )
        do {
            _ = try await store.commit([.conversation(conversation)])
        } catch {
            throw .internalError("could not store the conversation: \(error)")
        }
        chatHub.open(conversationID: conversation.id, lastSeq: 0)
        context.eventHub.publishConversation(name: ChatEventName.conversationUpdated, value: conversation)
        return conversation
    }

    func conversation(_ id: String) async throws(APIError) -> Conversation {
        let found: Conversation?
        do {
            found = try await store.conversation(id: id)
        } catch {
            throw .internalError("could not read conversation \(id): \(error)")
        }
        guard let found else { throw .notFound("conversation '\(id.prefix(80))' does not exist") }
        return found
    }

    func list(limit: Int, cursor: String?, pinned: Bool?, includeArchived: Bool) async throws(APIError) -> Page<Conversation> {
        try await storeCall { try await self.store.conversations(limit: limit, cursor: cursor, pinned: pinned, includeArchived: includeArchived) }
    }

    func patch(_ id: String, _ request: PatchConversationRequest) async throws(APIError) -> Conversation {
        let title = try Self.title(request.title)
        if request.title != nil && title == nil { throw .invalidBody("title cannot be empty") }
        if request.title == nil && request.pinned == nil && request.archived == nil {
            throw .invalidBody("nothing to change: give title, pinned or archived")
        }
        let worker = try await worker(id)
        return try await perform(worker) { core, now in
            core.step(now: now) { machine in
                var actions = machine.update(
                    { conversation in
                        if let title {
                            conversation.title = title
                            conversation.titleIsCustom = true
                        }
                        if let pinned = request.pinned { conversation.pinned = pinned }
                        if let archived = request.archived { conversation.archived = archived }
                    }, now: now)
                if let title { actions.append(.emit(.titleUpdate(TitleUpdateEvent(title: title)))) }
                return (machine.conversation, actions)
            }
        }
    }

    func delete(_ id: String) async throws(APIError) {
        _ = try await conversation(id)
        // Approvals it was waiting for are no longer anyone's business: read before anything stops.
        let pending = try await storeCall { try await self.store.approvals(state: .pending, conversationID: id) }
        let worker = workers.withLock { $0.removeValue(forKey: id) }
        await worker?.shutdown(grace: .seconds(2))
        do {
            _ = try await store.commit([.deleteConversation(id)])
        } catch {
            throw .internalError("could not delete conversation \(id): \(error)")
        }
        for var approval in pending {
            approval.state = .cancelled
            context.eventHub.approvalChanged(approval)
        }
        unrecovered.withLock { _ = $0.removeValue(forKey: id) }
        chatHub.remove(conversationID: id)
        context.eventHub.publishConversation(name: ChatEventName.conversationRemoved, value: ConversationRemoved(id: id))
    }

    func messages(_ id: String, before: String?, limit: Int) async throws(APIError) -> Page<ChatMessage> {
        _ = try await conversation(id)
        return try await storeCall {
            let last = try await self.store.lastEventSeq(conversationID: id)
            var page = try await self.store.messages(conversationID: id, before: before, limit: limit)
            page.lastEventId = last
            return page
        }
    }

    // MARK: - Turns

    func send(_ id: String, _ request: SendMessageRequest) async throws(APIError) -> SendMessageResponse {
        let text = try TextLimit.chatMessage.freeText(request.text, field: "text")
        let worker = try await worker(id)
        let mode = request.mode ?? .queue
        // A person wrote: in the same step, a running auto-reply loop takes note (and pauses unless overrides are allowed).
        return try await perform(worker) { core, now in core.send(text: text, mode: mode, now: now) }
    }

    /// Revokes a session rule of a conversation: the calls it covered ask again from now on.
    func revokeRule(_ id: String, ruleID: String) async throws(APIError) -> SessionRule {
        let worker = try await worker(id)
        return try await perform(worker) { core, now in
            try core.step(now: now) { machine throws(ConversationMachine.Refusal) in try machine.revokeRule(id: ruleID, now: now) }
        }
    }

    func interrupt(_ id: String) async throws(APIError) -> InterruptResponse {
        let worker = try await worker(id)
        return try await perform(worker) { core, now in
            try core.step(now: now) { machine throws(ConversationMachine.Refusal) in
                let (turn, actions) = try machine.interrupt(now: now)
                return (InterruptResponse(turnId: turn), actions)
            }
        }
    }

    // MARK: - Approvals

    func approvals(state: ApprovalState?, conversationID: String?) async throws(APIError) -> [Approval] {
        let found = try await storeCall { try await self.store.approvals(state: state, conversationID: conversationID) }
        return await withCurrentDiffs(found)
    }

    /// The approvals with the diffs of the pending file edits computed again against the files as they are now: what a
    /// person sees when deciding is what the edit would do to the file as it is, even if it changed since the agent asked.
    func withCurrentDiffs(_ approvals: [Approval]) async -> [Approval] {
        var directories: [String: String?] = [:]
        var result = approvals
        for index in result.indices where result[index].state == .pending && result[index].diffs != nil {
            let id = result[index].conversationId
            if directories[id] == nil { directories[id] = .some(try? await store.conversation(id: id)?.cwd) }
            guard let cwd = directories[id] ?? nil else { continue }
            result[index].diffs = await EditDiffs(roots: roots, cwd: cwd).current(result[index])
        }
        return result
    }

    func decide(_ approvalID: String, _ request: ApprovalDecisionRequest, by: String) async throws(APIError) -> Approval {
        if let message = request.message, message.utf8.count > 4096 { throw .invalidBody("message is longer than 4096 bytes") }
        if let input = request.updatedInput, input.objectValue == nil { throw .invalidBody("updated_input must be a JSON object") }
        guard let approval = try await storedApproval(approvalID) else { throw .notFound("approval '\(approvalID.prefix(80))' does not exist") }
        guard approval.state == .pending else { throw Self.notPending(approval) }
        let worker = try await worker(approval.conversationId)
        if let edited = request.updatedInput, edited != approval.input, case .codex? = configuration.backend(worker.backend)?.kind {
            throw .invalidBody("codex cannot run a call with a changed input: allow it as asked, or deny it with a message")
        }
        if request.decision != .deny, let toolUseID = approval.toolUseId {
            // The call runs as soon as it is allowed: what it changes is measured from the files as they are now.
            await worker.editAllowed(toolUseID: toolUseID, tool: approval.toolName, input: request.updatedInput ?? approval.input)
        }
        do {
            return try await perform(worker) { core, now in
                try core.step(now: now) { machine throws(ConversationMachine.Refusal) in
                    try machine.decide(
                        approvalID: approvalID, decision: request.decision, message: request.message, updatedInput: request.updatedInput, by: by, now: now
                    )
                }
            }
        } catch .conflict(_) {
            // Decided or cancelled in the meantime: say how it ended.
            throw Self.notPending(try await storedApproval(approvalID) ?? approval)
        }
    }

    private func storedApproval(_ id: String) async throws(APIError) -> Approval? {
        do {
            return try await store.approval(id: id)
        } catch {
            throw .internalError("could not read approval \(id): \(error)")
        }
    }

    // MARK: - Workers

    /// The worker of a conversation (made on first use), once recovery is over; a conversation whose recovery failed
    /// refuses.
    func worker(_ id: String) async throws(APIError) -> ConversationWorker {
        try await requireReady()
        if let reason = unrecovered.withLock({ $0[id] }) { throw Self.unrecoveredError(id, reason) }
        if let existing = workers.withLock({ $0[id] }) { return existing }
        let conversation = try await conversation(id)
        if let owner = conversation.hostId, let hostID, owner != hostID {
            // The cluster routes such requests to the owner; this is a guard: never run another host's agent here.
            throw .other(.serviceUnavailable, .hostOffline, "conversation \(id) runs on another host, which did not take the request")
        }
        return try await storeCall { try await self.worker(for: conversation, queued: []) }
    }

    func worker(for conversation: Conversation, queued: [Turn]) async throws -> ConversationWorker {
        if let existing = workers.withLock({ $0[conversation.id] }) { return existing }
        let (autoReply, problem) = try await loadAutoReply(conversation)
        let configuration = configuration.machine
        let context = context
        let (worker, made) = workers.withLock { workers -> (ConversationWorker, Bool) in
            if let existing = workers[conversation.id] { return (existing, false) }
            let chat = ConversationMachine(conversation: conversation, queued: queued, configuration: configuration)
            let worker = ConversationWorker(core: ConversationCore(chat: chat, autoReply: autoReply), context: context)
            workers[conversation.id] = worker
            return (worker, true)
        }
        if made, let problem {
            logger.error("conversation \(conversation.id): \(problem)")
            worker.enqueue { core, now in core.loopReset(problem, now: now) }
        }
        return worker
    }

    /// Runs `body` on the conversation's core; refusals become the contract's errors.
    func perform<R: Sendable>(
        _ worker: ConversationWorker, _ body: @escaping @Sendable (inout ConversationCore, Date) throws -> (R, [ConversationCore.Action])
    ) async throws(APIError) -> R {
        do {
            return try await worker.perform(body)
        } catch let refusal as ConversationMachine.Refusal {
            switch refusal {
            case .noTurnRunning: throw .conflict("no turn is running in conversation \(worker.id)")
            case .approvalNotPending(let id): throw .conflict("approval \(id) is not pending")
            case .ruleNotFound(let id): throw .notFound("session rule '\(id.prefix(80))' does not exist in conversation \(worker.id)")
            }
        } catch let refusal as AutoReplyMachine.Refusal {
            switch refusal {
            case .invalidSettings(let problems): throw .invalidBody(problems.joined(separator: "; "))
            case .disabled: throw .conflict("auto-reply is disabled in this conversation's settings (enabled: false)")
            default: throw .conflict("auto-reply: \(refusal)")
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw .internalError("conversation \(worker.id): \(error)")
        }
    }

    func storeCall<R>(_ body: () async throws -> R) async throws(APIError) -> R {
        do {
            return try await body()
        } catch let error as APIError {
            throw error
        } catch {
            throw .internalError("chat database: \(error)")
        }
    }
}
