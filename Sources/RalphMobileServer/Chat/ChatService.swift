import AgentRunner
import Foundation
import Logging
import NIOCore
import RalphAPI
import RalphFiles
import Synchronization

/// An agent CLI conversations can use: its command and the flags of `design/CHAT.md`.
public struct ChatBackend: Sendable, Hashable {
    public var name: String
    /// A path, or a name looked up on `PATH`.
    public var command: String
    /// Flags given to every process (before `--resume`, `--model`, `--permission-mode`).
    public var arguments: [String]
    /// The permission modes assumed when the CLI's `--help` cannot be read (those of the version tested).
    public var knownPermissionModes: [String]

    public init(name: String, command: String, arguments: [String], knownPermissionModes: [String] = []) {
        self.name = name
        self.command = command
        self.arguments = arguments
        self.knownPermissionModes = knownPermissionModes
    }

    /// Claude Code, headless, with live approvals on stdio.
    public static func claude(command: String = "claude", extraArguments: [String] = []) -> ChatBackend {
        ChatBackend(
            name: "claude", command: command,
            arguments: [
                "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
                "--permission-prompt-tool", "stdio",
            ] + extraArguments,
            knownPermissionModes: ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"]
        )
    }
}

/// What every conversation worker shares.
struct ChatContext: Sendable {
    let store: ChatStore
    let chatHub: ChatHub
    let eventHub: EventHub
    let backend: ChatBackend
    let environment: [String: String]
    let terminateGrace: Duration
    let logger: Logger
    let encoder: ChatEventEncoder
}

/// Encodes an event's data the way it is stored and sent.
struct ChatEventEncoder: Sendable {
    func encode(_ event: ChatEvent) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try event.encodedData(with: encoder)
    }
}

/// Conversations: creating, listing and deleting them, and handing each request to the conversation's worker.
public final class ChatService: Sendable {
    public struct Configuration: Sendable {
        public var backend: ChatBackend
        public var machine: ConversationMachine.Configuration
        public var terminateGrace: Duration = .seconds(5)
        public init(backend: ChatBackend = .claude(), machine: ConversationMachine.Configuration = .init()) {
            self.backend = backend
            self.machine = machine
        }
    }

    /// Longest message text accepted.
    public static let maxTextLength = 100_000
    public static let maxTitleLength = 200

    let store: ChatStore
    let chatHub: ChatHub
    let roots: WorkspaceRoots
    let configuration: Configuration
    private let context: ChatContext
    private let workers = Mutex<[String: ConversationWorker]>([:])
    /// What the backend CLI says about itself, asked once at start.
    private let probe = Mutex<Task<AgentInfo, Never>?>(nil)
    /// Requests wait until what the previous server left has been settled.
    private let readiness = Mutex<(ready: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let logger: Logger

    init(store: ChatStore, chatHub: ChatHub, eventHub: EventHub, roots: WorkspaceRoots, configuration: Configuration, environment: [String: String], logger: Logger) {
        self.store = store
        self.chatHub = chatHub
        self.roots = roots
        self.configuration = configuration
        self.logger = logger
        self.context = ChatContext(
            store: store, chatHub: chatHub, eventHub: eventHub, backend: configuration.backend, environment: environment,
            terminateGrace: configuration.terminateGrace, logger: logger, encoder: ChatEventEncoder()
        )
    }

    // MARK: - Startup and shutdown

    /// The text a turn streamed after its last stored message: its `chunk` events since its last `segment_end` or
    /// `tool_start` (a server that stopped mid-sentence had sent them, but not stored them as a message yet).
    func unstoredText(conversationID: String, turnID: String) async throws -> String {
        let names: Set<String> = [ChatEventName.turnStart, ChatEventName.chunk, ChatEventName.segmentEnd, ChatEventName.toolStart]
        var text = ""
        var after = 0
        while true {
            let page = try await store.events(conversationID: conversationID, after: after, limit: 1000)
            guard let last = page.last else { return text }
            after = last.seq
            for event in page where names.contains(event.name) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any],
                    object["turn_id"] as? String == turnID
                else { continue }
                if event.name == ChatEventName.chunk { text += object["text"] as? String ?? "" } else { text = "" }
            }
        }
    }

    /// Opens every conversation's stream and settles what a previous server left: running turns end with an error,
    /// pending approvals are cancelled, queued turns start (the agent resumed with `--resume`).
    func start() async throws {
        startProbe()
        defer { markReady() }
        for conversation in try await store.allConversations() {
            chatHub.open(conversationID: conversation.id, lastSeq: try await store.lastEventSeq(conversationID: conversation.id))
            let turns = try await store.turns(conversationID: conversation.id, states: [.queued, .running])
            let approvals = try await store.approvals(state: .pending, conversationID: conversation.id)
            let needsRecovery =
                !turns.isEmpty || !approvals.isEmpty || conversation.status != .idle || conversation.processRunning || conversation.queued != 0
                || conversation.pendingApprovals != 0
            guard needsRecovery else { continue }
            let queued = turns.filter { $0.state == .queued }
            let running = turns.filter { $0.state == .running }
            var unstored: [String: String] = [:]
            for turn in running { unstored[turn.id] = try await unstoredText(conversationID: conversation.id, turnID: turn.id) }
            let worker = try await worker(for: conversation, queued: queued)
            worker.enqueue { [unstored] machine, now in machine.recover(interrupted: running, unstoredText: unstored, pending: approvals, now: now) }
            logger.notice(
                "conversation \(conversation.id): recovered after a restart",
                metadata: ["interrupted": "\(running.count)", "queued": "\(queued.count)", "cancelled_approvals": "\(approvals.count)"]
            )
        }
        // Loops that were running go on as paused: a person decides when they continue.
        for (conversationID, stored) in try await store.autoReplyLoops() {
            guard let loop = stored.loop, let machine = try? JSONDecoder().decode(AutoReplyMachine.self, from: Data(loop)), machine.state == .running,
                let conversation = try await store.conversation(id: conversationID)
            else { continue }
            let worker = try await worker(for: conversation, queued: [])
            worker.enqueueAutoReply(.restarted(now: Date()))
            logger.notice("conversation \(conversationID): its auto-reply loop was running; it is paused after the restart")
        }
    }

    /// Asks the backend CLI for its version and permission modes, in the background.
    private func startProbe() {
        let backend = configuration.backend
        let environment = context.environment
        let cwd = roots.paths.first ?? "/"
        let logger = logger
        probe.withLock { task in
            guard task == nil else { return }
            task = Task {
                let info = await AgentProbe.probe(
                    name: backend.name, command: backend.command, environment: environment, workingDirectory: cwd, fallbackModes: backend.knownPermissionModes
                )
                if let error = info.error {
                    logger.warning("\(backend.name): could not ask \(backend.command) about itself: \(error)")
                } else {
                    logger.info("\(backend.name): \(backend.command) \(info.version ?? "(no version)"), permission modes \(info.permissionModes.joined(separator: ", "))")
                }
                return info
            }
        }
    }

    /// The backend CLI as it described itself (asked at start; waited for if the answer is still coming, for at most
    /// `patience`, after which what is assumed of it is returned with an error saying it is still being asked).
    func agent(patience: Duration = AgentProbe.timeout * 2) async -> AgentInfo {
        startProbe()
        let backend = configuration.backend
        let pending = AgentInfo(
            name: backend.name, command: backend.command, version: nil, permissionModes: backend.knownPermissionModes,
            error: "still asking \(backend.command) for its version"
        )
        guard let task = probe.withLock({ $0 }) else { return pending }
        return await withDeadline(patience) { await task.value } ?? pending
    }

    private func markReady() {
        let waiters = readiness.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ready = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func waitUntilReady() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = readiness.withLock { state -> Bool in
                if state.ready { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Stops every agent process (the server is stopping; turns left running are settled at the next start).
    func shutdown() async {
        let all = workers.withLock { workers -> [ConversationWorker] in
            defer { workers = [:] }
            return Array(workers.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in all { group.addTask { await worker.shutdown(grace: .seconds(2)) } }
        }
    }

    /// Ticks every live conversation (stall reports, interrupts that do not end, idle processes).
    func tick() {
        let all = workers.withLock { Array($0.values) }
        for worker in all {
            worker.enqueue { machine, now in machine.tick(now: now) }
            worker.enqueueAutoReply(.tick(now: Date()))
        }
    }

    // MARK: - Conversations

    func create(_ request: CreateConversationRequest) async throws(APIError) -> Conversation {
        let cwd: String
        switch roots.resolve(request.cwd, relativeTo: roots.paths.first ?? "/", kind: .directory) {
        case .success(let path): cwd = path
        case .failure(let error): throw .invalidPath("cwd: \(error)")
        }
        let backend = request.backend ?? configuration.backend.name
        guard backend == configuration.backend.name else {
            throw .invalidBody("unknown backend '\(backend.prefix(40))'; this server runs: \(configuration.backend.name)")
        }
        let title = try Self.title(request.title) ?? ""
        if let model = request.model { try Self.flagValue(model, field: "model") }
        if let mode = request.permissionMode {
            // What this CLI accepts (its --help), and `default`, which means no flag.
            let modes = ["default"] + (await agent()).permissionModes
            guard modes.contains(mode) else {
                throw .invalidBody("permission_mode must be one of \(modes.joined(separator: ", ")) (what \(configuration.backend.command) accepts)")
            }
        }
        let now = Timestamp.now()
        let conversation = Conversation(
            id: "c_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20), title: title, titleIsCustom: !title.isEmpty,
            cwd: cwd, backend: backend, model: request.model, permissionMode: request.permissionMode, createdAt: now, updatedAt: now, lastActivityAt: now
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
        return try await perform(worker) { machine, now in
            let actions = machine.update(
                { conversation in
                    if let title {
                        conversation.title = title
                        conversation.titleIsCustom = true
                    }
                    if let pinned = request.pinned { conversation.pinned = pinned }
                    if let archived = request.archived { conversation.archived = archived }
                }, now: now)
            var result = actions
            if let title { result.append(.emit(.titleUpdate(TitleUpdateEvent(title: title)))) }
            return (machine.conversation, result)
        }
    }

    func delete(_ id: String) async throws(APIError) {
        _ = try await conversation(id)
        let worker = workers.withLock { $0.removeValue(forKey: id) }
        await worker?.shutdown(grace: .seconds(2))
        // Approvals it was waiting for are no longer anyone's business.
        if let pending = try? await store.approvals(state: .pending, conversationID: id) {
            for var approval in pending {
                approval.state = .cancelled
                context.eventHub.approvalChanged(approval)
            }
        }
        do {
            _ = try await store.commit([.deleteConversation(id)])
        } catch {
            throw .internalError("could not delete conversation \(id): \(error)")
        }
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
        let text = request.text
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw .invalidBody("text cannot be empty") }
        if text.utf8.count > Self.maxTextLength { throw .invalidBody("text is longer than \(Self.maxTextLength) bytes") }
        if text.unicodeScalars.contains("\u{0}") { throw .invalidBody("text contains a NUL character") }
        let worker = try await worker(id)
        let mode = request.mode ?? .queue
        let response = try await perform(worker) { machine, now in machine.send(text: text, mode: mode, now: now) }
        // A person wrote: a running auto-reply loop takes note (and pauses unless overrides are allowed).
        worker.enqueueAutoReply(.manualMessage(now: Date()))
        return response
    }

    /// Revokes a session rule of a conversation: the calls it covered ask again from now on.
    func revokeRule(_ id: String, ruleID: String) async throws(APIError) -> SessionRule {
        let worker = try await worker(id)
        return try await perform(worker) { machine, now throws(ConversationMachine.Refusal) in
            try machine.revokeRule(id: ruleID, now: now)
        }
    }

    func interrupt(_ id: String) async throws(APIError) -> InterruptResponse {
        let worker = try await worker(id)
        return try await perform(worker) { machine, now throws(ConversationMachine.Refusal) in
            let (turn, actions) = try machine.interrupt(now: now)
            return (InterruptResponse(turnId: turn), actions)
        }
    }

    // MARK: - Approvals

    func approvals(state: ApprovalState?, conversationID: String?) async throws(APIError) -> [Approval] {
        try await storeCall { try await self.store.approvals(state: state, conversationID: conversationID) }
    }

    func decide(_ approvalID: String, _ request: ApprovalDecisionRequest, by: String) async throws(APIError) -> Approval {
        if let message = request.message, message.utf8.count > 4096 { throw .invalidBody("message is longer than 4096 bytes") }
        if let input = request.updatedInput, input.objectValue == nil { throw .invalidBody("updated_input must be a JSON object") }
        let approval: Approval?
        do {
            approval = try await store.approval(id: approvalID)
        } catch {
            throw .internalError("could not read approval \(approvalID): \(error)")
        }
        guard let approval else { throw .notFound("approval '\(approvalID.prefix(80))' does not exist") }
        guard approval.state == .pending else { throw Self.notPending(approval) }
        let worker = try await worker(approval.conversationId)
        do {
            return try await perform(worker) { machine, now throws(ConversationMachine.Refusal) in
                try machine.decide(
                    approvalID: approvalID, decision: request.decision, message: request.message, updatedInput: request.updatedInput, by: by, now: now
                )
            }
        } catch .conflict(_) {
            // Decided or cancelled in the meantime: say how it ended.
            let now = (try? await store.approval(id: approvalID)) ?? nil
            throw Self.notPending(now ?? approval)
        }
    }

    static func notPending(_ approval: Approval) -> APIError {
        switch approval.state {
        case .pending: .conflict("approval \(approval.id) is being decided")
        case .allowed, .denied:
            .conflict("approval \(approval.id) was already decided: \(approval.decision?.rawValue ?? approval.state.rawValue) by \(approval.decidedBy ?? "someone")")
        case .cancelled: .conflict("approval \(approval.id) is no longer pending: \(approval.message ?? "its turn ended")")
        }
    }

    // MARK: - Workers

    private func worker(_ id: String) async throws(APIError) -> ConversationWorker {
        await waitUntilReady()
        if let existing = workers.withLock({ $0[id] }) { return existing }
        let conversation = try await conversation(id)
        return try await storeCall { try await self.worker(for: conversation, queued: []) }
    }

    private func worker(for conversation: Conversation, queued: [Turn]) async throws -> ConversationWorker {
        if let existing = workers.withLock({ $0[conversation.id] }) { return existing }
        let autoReply = try await loadAutoReply(conversation)
        let configuration = configuration.machine
        let context = context
        return workers.withLock { workers in
            if let existing = workers[conversation.id] { return existing }
            let worker = ConversationWorker(
                machine: ConversationMachine(conversation: conversation, queued: queued, configuration: configuration), autoReply: autoReply, context: context
            )
            workers[conversation.id] = worker
            return worker
        }
    }

    /// The conversation's stored loop, else a stopped one with its settings, else its project's defaults, else the
    /// built-in defaults.
    private func loadAutoReply(_ conversation: Conversation) async throws -> AutoReplyMachine {
        let decoder = JSONDecoder()
        if let stored = try await store.autoReply(conversationID: conversation.id) {
            if let loop = stored.loop, let machine = try? decoder.decode(AutoReplyMachine.self, from: Data(loop)) { return machine }
            if let settings = try? decoder.decode(AutoReplySettings.self, from: Data(stored.settings)) {
                return AutoReplyMachine(conversationID: conversation.id, settings: settings)
            }
        }
        if let defaults = try await store.autoReplyDefaults(cwd: conversation.cwd), let settings = try? decoder.decode(AutoReplySettings.self, from: Data(defaults)) {
            return AutoReplyMachine(conversationID: conversation.id, settings: settings)
        }
        return AutoReplyMachine(conversationID: conversation.id, settings: AutoReplySettings())
    }

    // MARK: - Auto-reply

    func autoReplyStatus(_ id: String) async throws(APIError) -> AutoReplyStatus {
        let worker = try await worker(id)
        return try await storeCall {
            try await worker.read { state, now in AutoReplyStatus(settings: state.autoReply.settings, progress: state.autoReply.progress(now: now)) }
        }
    }

    /// Replaces the settings (a running loop uses the new limits at once); `asDefault` also makes them the defaults of
    /// conversations created later in the same directory.
    func setAutoReply(_ id: String, _ settings: AutoReplySettings, asDefault: Bool) async throws(APIError) -> AutoReplyStatus {
        let problems = settings.problems
        guard problems.isEmpty else { throw .invalidBody(problems.joined(separator: "; ")) }
        let worker = try await worker(id)
        let status = try await autoReplyControl(worker) { machine, _, now throws(AutoReplyMachine.Refusal) in
            try machine.handle(.updateSettings(settings, now: now))
        }
        if asDefault {
            let conversation = try await conversation(id)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try await storeCall { _ = try await self.store.commit([.autoReplyDefaults(cwd: conversation.cwd, settings: Array(try encoder.encode(settings)))]) }
        }
        return status
    }

    enum AutoReplyCommand: Sendable {
        case start(AutoReplySettings?)
        case pause, resume, stop
    }

    func autoReply(_ id: String, _ command: AutoReplyCommand) async throws(APIError) -> AutoReplyStatus {
        if case .start(let settings?) = command {
            let problems = settings.problems
            guard problems.isEmpty else { throw .invalidBody(problems.joined(separator: "; ")) }
        }
        let worker = try await worker(id)
        return try await autoReplyControl(worker) { machine, chat, now throws(AutoReplyMachine.Refusal) in
            switch command {
            case .start(let settings):
                var actions: [AutoReplyMachine.Action] = []
                if let settings { actions += try machine.handle(.updateSettings(settings, now: now)) }
                return actions + (try machine.handle(.start(now: now, conversationIdle: chat.isIdle)))
            case .pause: return try machine.handle(.pause(now: now))
            case .resume: return try machine.handle(.resume(now: now, conversationIdle: chat.isIdle))
            case .stop: return try machine.handle(.stop(now: now))
            }
        }
    }

    /// Runs a control on the loop and answers with the settings and progress after it; the loop is stored either way.
    private func autoReplyControl(
        _ worker: ConversationWorker,
        _ body: @escaping @Sendable (inout AutoReplyMachine, ConversationMachine, Date) throws(AutoReplyMachine.Refusal) -> [AutoReplyMachine.Action]
    ) async throws(APIError) -> AutoReplyStatus {
        do {
            return try await worker.performAutoReply { machine, chat, now throws(AutoReplyMachine.Refusal) in
                let actions = try body(&machine, chat, now)
                return (AutoReplyStatus(settings: machine.settings, progress: machine.progress(now: now)), actions)
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

    private func perform<R: Sendable>(
        _ worker: ConversationWorker,
        _ body: @escaping @Sendable (inout ConversationMachine, Date) throws(ConversationMachine.Refusal) -> (R, [ConversationMachine.Action])
    ) async throws(APIError) -> R {
        do {
            return try await worker.perform(body)
        } catch let refusal as ConversationMachine.Refusal {
            switch refusal {
            case .noTurnRunning: throw .conflict("no turn is running in conversation \(worker.id)")
            case .approvalNotPending(let id): throw .conflict("approval \(id) is not pending")
            case .ruleNotFound(let id): throw .notFound("session rule '\(id.prefix(80))' does not exist in conversation \(worker.id)")
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw .internalError("conversation \(worker.id): \(error)")
        }
    }

    private func storeCall<R>(_ body: () async throws -> R) async throws(APIError) -> R {
        do {
            return try await body()
        } catch let error as APIError {
            throw error
        } catch {
            throw .internalError("chat database: \(error)")
        }
    }

    // MARK: - Validation

    /// A trimmed title, nil when none was given; errors when it is blank or too long.
    static func title(_ value: String?) throws(APIError) -> String? {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        if trimmed.count > maxTitleLength { throw .invalidBody("title is longer than \(maxTitleLength) characters") }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidBody("title contains a control character")
        }
        return trimmed
    }

    /// A value passed as a CLI flag: short, printable, and not itself a flag.
    static func flagValue(_ value: String, field: String) throws(APIError) {
        if value.isEmpty || value.count > 100 || value.hasPrefix("-")
            || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        {
            throw .invalidBody("\(field) must be a short name without spaces")
        }
    }
}
