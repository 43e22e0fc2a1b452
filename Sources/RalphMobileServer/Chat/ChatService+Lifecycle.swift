import AgentRunner
import Foundation
import Logging
import RalphAPI

/// Startup (settling what a previous server left), readiness, ticks and shutdown.
///
/// Recovery is honest about failing: a conversation whose recovery fails is logged and refuses requests with the
/// reason (it is not run out of step with the database); if the conversations cannot even be listed, every request
/// that needs recovery is refused and `/api/health` says `degraded` (``recoveryProblems``). Nothing is marked ready
/// that is not.
extension ChatService {
    /// Where recovery stands.
    enum Readiness: Sendable {
        case starting(waiters: [CheckedContinuation<Void, Never>])
        case ready
        /// Listing the conversations failed: nothing could be recovered.
        case failed(String)
    }

    /// Runs ``start()`` in the background, owned by the service (``shutdown()`` cancels and awaits it).
    func startRecovery() {
        tasks.spawn { [self] in
            do {
                try await start()
            } catch {
                logger.error("conversations: could not recover after the restart: \(error)")
            }
        }
    }

    /// Opens every conversation's stream and settles what a previous server left: running turns end with an error,
    /// pending approvals are cancelled, queued turns start (the agent resumed with `--resume`), running auto-reply
    /// loops are paused. A conversation that fails is set aside (``unrecovered``); failing to list them fails it all.
    func start() async throws {
        startProbe()
        let conversations: [Conversation]
        do {
            conversations = try await store.allConversations()
        } catch {
            settle(.failed("could not list the conversations: \(error)"))
            throw error
        }
        // In a cluster, each host settles and runs its own conversations only (their agents run on its machine).
        for conversation in conversations where conversation.hostId == nil || conversation.hostId == hostID {
            do {
                try await recover(conversation)
            } catch {
                logger.error("conversation \(conversation.id): could not be recovered after the restart: \(error)")
                unrecovered.withLock { $0[conversation.id] = "\(error)" }
            }
        }
        settle(.ready)
    }

    /// One conversation: its stream opened, its turns, approvals and auto-reply loop settled.
    private func recover(_ conversation: Conversation) async throws {
        chatHub.open(conversationID: conversation.id, lastSeq: try await store.lastEventSeq(conversationID: conversation.id))
        let turns = try await store.turns(conversationID: conversation.id, states: [.queued, .running])
        let approvals = try await store.approvals(state: .pending, conversationID: conversation.id)
        let needsRecovery =
            !turns.isEmpty || !approvals.isEmpty || conversation.status != .idle || conversation.processRunning || conversation.queued != 0
            || conversation.pendingApprovals != 0
        let loop = try await storedLoop(conversation.id)
        let loopRunning = loop == .state(.running)
        // An unreadable loop is reset by its worker, which says so on the conversation: made now, so it is said now.
        guard needsRecovery || loopRunning || loop == .unreadable else { return }
        let queued = turns.filter { $0.state == .queued }
        let running = turns.filter { $0.state == .running }
        var unstored: [String: String] = [:]
        for turn in running { unstored[turn.id] = try await unstoredText(conversationID: conversation.id, turnID: turn.id) }
        let worker = try await worker(for: conversation, queued: queued)
        if needsRecovery {
            worker.enqueue { [unstored] core, now in core.recover(interrupted: running, unstoredText: unstored, pending: approvals, now: now) }
            logger.notice(
                "conversation \(conversation.id): recovered after a restart",
                metadata: ["interrupted": "\(running.count)", "queued": "\(queued.count)", "cancelled_approvals": "\(approvals.count)"]
            )
        }
        if loopRunning {
            // Loops that were running go on as paused: a person decides when they continue.
            worker.enqueue { core, now in core.restarted(now: now) }
            logger.notice("conversation \(conversation.id): its auto-reply loop was running; it is paused after the restart")
        }
    }

    private enum StoredLoop: Equatable {
        case none
        case state(AutoReplyState)
        case unreadable
    }

    /// The state of a conversation's stored auto-reply loop.
    private func storedLoop(_ conversationID: String) async throws -> StoredLoop {
        guard let loop = try await store.autoReply(conversationID: conversationID)?.loop else { return .none }
        do {
            return .state(try WireJSON.decode(AutoReplyMachine.self, from: Data(loop)).state)
        } catch {
            // Not hidden: the worker made for it logs this and resets the loop with a notice on the conversation.
            return .unreadable
        }
    }

    /// The text a turn streamed after its last stored message: its `chunk` events since its last `segment_end` or
    /// `tool_start` (a server that stopped mid-sentence had sent them, but not stored them as a message yet).
    func unstoredText(conversationID: String, turnID: String) async throws -> String {
        struct Fields: Decodable {
            var turnId: String?
            var text: String?
            enum CodingKeys: String, CodingKey {
                case turnId = "turn_id"
                case text
            }
        }
        let names: Set<String> = [ChatEventName.turnStart, ChatEventName.chunk, ChatEventName.segmentEnd, ChatEventName.toolStart]
        var text = ""
        var after = 0
        while true {
            let page = try await store.events(conversationID: conversationID, after: after, limit: 1000)
            guard let last = page.last else { return text }
            after = last.seq
            for event in page where names.contains(event.name) {
                let fields: Fields
                do {
                    fields = try WireJSON.decode(Fields.self, from: Data(event.data))
                } catch {
                    logger.warning("conversation \(conversationID): stored event \(event.seq) (\(event.name)) is not readable, skipped: \(error)")
                    continue
                }
                guard fields.turnId == turnID else { continue }
                if event.name == ChatEventName.chunk { text += fields.text ?? "" } else { text = "" }
            }
        }
    }

    // MARK: - Readiness

    private func settle(_ outcome: Readiness) {
        let waiters = readiness.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .starting(let waiters) = state else { return [] }
            state = outcome
            return waiters
        }
        settled.open()
        waiters.forEach { $0.resume() }
    }

    /// Waits until recovery is over; refuses when it failed.
    func requireReady() async throws(APIError) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = readiness.withLock { state -> Bool in
                guard case .starting(var waiters) = state else { return true }
                waiters.append(continuation)
                state = .starting(waiters: waiters)
                return false
            }
            if now { continuation.resume() }
        }
        if case .failed(let reason) = readiness.withLock({ $0 }) {
            throw .other(.serviceUnavailable, .unavailable, "conversations could not be recovered after the restart: \(reason)")
        }
    }

    /// What went wrong in recovery, for `/api/health`: empty when everything was recovered.
    var recoveryProblems: [String] {
        var problems: [String] = []
        if case .failed(let reason) = readiness.withLock({ $0 }) { problems.append("conversations: \(reason)") }
        problems += unrecovered.withLock { $0 }.sorted { $0.key < $1.key }.map { "conversation \($0.key): \($0.value)" }
        return problems
    }

    /// `/api/health`'s `status`: `degraded` when something could not be recovered, `recovering` while recovery still
    /// runs, else `ok`. Waits up to `patience` for recovery to settle, so a server that has just started says how
    /// its recovery went rather than that it is still busy.
    func healthStatus(patience: Duration) async -> String {
        let settled = self.settled
        if !settled.isOpen { _ = await withDeadline(patience) { await settled.wait() ? true : nil } }
        if !recoveryProblems.isEmpty { return HealthStatus.degraded }
        return settled.isOpen ? HealthStatus.ok : HealthStatus.recovering
    }

    static func unrecoveredError(_ id: String, _ reason: String) -> APIError {
        .other(.serviceUnavailable, .unavailable, "conversation \(id) could not be recovered after the restart (\(reason)); see the server log")
    }

    // MARK: - The backend CLIs

    /// Asks every backend CLI for its version and permission modes, in the background.
    func startProbe() {
        for backend in configuration.backends { probe(backend, again: false) }
    }

    /// What is known of a backend CLI: the question under way, or its answer.
    enum Probe: Sendable {
        case asking(Task<AgentInfo, Never>)
        case answered(AgentInfo)
    }

    /// Asks `backend` about itself unless that is under way or answered (`again`: unless under way or answered
    /// without an error).
    @discardableResult
    func probe(_ backend: ChatBackend, again: Bool) -> Probe {
        let environment = context.environment
        let cwd = roots.paths.first ?? "/"
        let logger = logger
        return probes.withLock { probes in
            switch probes[backend.name] {
            case .asking(let task)?: return .asking(task)
            case .answered(let info)? where !again || info.error == nil: return .answered(info)
            default: break
            }
            let task = Task {
                var info = await AgentProbe.probe(
                    name: backend.name, command: backend.command, environment: environment, workingDirectory: cwd, fallbackModes: backend.knownPermissionModes
                )
                if info.error == nil, let unmet = backend.unmetRequirement(environment: environment) { info.error = unmet }
                if let error = info.error {
                    logger.warning("\(backend.name): conversations cannot use \(backend.command): \(error)")
                } else {
                    logger.info("\(backend.name): \(backend.command) \(info.version ?? "(no version)"), permission modes \(info.permissionModes.joined(separator: ", "))")
                }
                // Kept as the answer once it is in (the task ends here, so nothing is left running).
                self.probes.withLock { $0[backend.name] = .answered(info) }
                return info
            }
            probes[backend.name] = .asking(task)
            return .asking(task)
        }
    }

    /// The backend CLI `name` as it described itself (asked at start; waited for if the answer is still coming, for at
    /// most `patience`, after which what is assumed of it is returned with an error saying it is still being asked).
    func agent(_ name: String, patience: Duration = AgentProbe.timeout * 2) async -> AgentInfo {
        guard let backend = configuration.backend(name) else {
            return AgentInfo(name: name, command: "", version: nil, permissionModes: [], error: "this server has no backend named \(name)")
        }
        let pending = AgentInfo(
            name: backend.name, command: backend.command, version: nil, permissionModes: backend.knownPermissionModes,
            error: "still asking \(backend.command) for its version"
        )
        switch probe(backend, again: false) {
        case .answered(let info): return info
        case .asking(let task): return await withDeadline(patience) { await task.value } ?? pending
        }
    }

    /// Every backend CLI as it described itself, in the configured order.
    func agents(patience: Duration) async -> [AgentInfo] {
        await withTaskGroup(of: (Int, AgentInfo).self) { group in
            for (index, backend) in configuration.backends.enumerated() {
                group.addTask { (index, await self.agent(backend.name, patience: patience)) }
            }
            var found: [(Int, AgentInfo)] = []
            for await entry in group { found.append(entry) }
            return found.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The backend a new conversation asks for (`name`, else the first configured), once its CLI answered; a CLI that
    /// could not be run is asked again (it may have been installed since), and refused with why if it still cannot.
    func availableBackend(_ name: String?) async throws(APIError) -> ChatBackend {
        let wanted = name ?? configuration.backends.first?.name ?? ""
        guard let backend = configuration.backend(wanted) else {
            let names = configuration.backends.map(\.name).joined(separator: ", ")
            throw .invalidBody("unknown backend '\(wanted.prefix(40))'; this server runs: \(names)")
        }
        var info = await agent(backend.name)
        if info.error != nil {
            switch probe(backend, again: true) {
            case .answered(let answer): info = answer
            case .asking(let task): info = await withDeadline(AgentProbe.timeout * 2) { await task.value } ?? info
            }
        }
        if let error = info.error {
            throw .other(.serviceUnavailable, .unavailable, "backend \(backend.name) is not available: looked for \(backend.command): \(error)")
        }
        return backend
    }

    // MARK: - Running

    /// Ticks every live conversation (stall reports, interrupts that do not end, idle processes, judge timeouts).
    func tick() {
        let all = workers.withLock { Array($0.values) }
        for worker in all {
            worker.enqueue { core, now in core.tick(now: now) }
        }
    }

    /// Stops recovery, every agent process and the probe (the server is stopping; turns left running are settled at
    /// the next start).
    func shutdown() async {
        await tasks.shutdown()
        let all = workers.withLock { workers -> [ConversationWorker] in
            defer { workers = [:] }
            return Array(workers.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in all { group.addTask { await worker.shutdown(grace: .seconds(2)) } }
        }
        let asking = probes.withLock { probes in probes.values.compactMap { if case .asking(let task) = $0 { task } else { nil } } }
        for task in asking { task.cancel() }
        for task in asking { _ = await task.value }
    }
}
