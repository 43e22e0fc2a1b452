import Foundation
import Observation
import RalphAPI

/// One conversation as a chat screen shows it, kept live.
///
/// - Messages are oldest first (newest last); ``loadEarlier()`` prepends the page before the oldest one.
/// - The reply being written is ``streamingText``, assembled from `chunk` events; when the server stores it as a message
///   (`segment_end`) it moves into ``messages``.
/// - Tool calls appear on their message when they start and get their real output when they end.
/// - ``pendingApprovals`` are the tool calls waiting for a person; ``decide(_:_:message:)`` answers one.
/// - The stream resumes after the last event id it saw, so a reconnect neither loses nor repeats anything; a message
///   that arrives both in a page and as an event is shown once (same id).
@MainActor
@Observable
public final class ConversationModel {
    /// The conversation shown.
    public let conversationID: String
    /// The client it reads, sends and follows through.
    public let client: RalphClient

    /// The conversation as ``load()`` read it, kept current from its events (title, status, permissions, cost); nil before.
    public private(set) var conversation: Conversation?
    /// Oldest first.
    public private(set) var messages: [ChatMessage] = []
    /// Text of the reply being streamed, not yet a stored message.
    public private(set) var streamingText = ""
    /// The turn running now, if any.
    public private(set) var currentTurnID: String?
    /// The tool calls waiting for a person's decision, oldest first.
    public private(set) var pendingApprovals: [Approval] = []
    /// What the agent is doing now, as ``load()`` read it and the `status` events say.
    public private(set) var status: ConversationStatus = .idle
    /// Seconds of silence when the server reported the turn as stalled.
    public private(set) var stalledFor: Int?
    /// While ``status`` is `retrying`: the model API retry the agent reported last.
    public private(set) var retry: APIRetry?
    /// Whether older messages remain for ``loadEarlier()``.
    public private(set) var hasEarlier = false
    /// True while ``loadEarlier()`` reads a page.
    public private(set) var isLoadingEarlier = false
    /// The state of the conversation's event stream.
    public private(set) var connection: ConnectionState = .disconnected
    /// The reconnection attempts to show (see ``ConnectionState/reconnectAttempts(after:)``).
    public private(set) var reconnectAttempts = 0
    /// The last error the agent reported (`error` event), cleared by the next turn.
    public private(set) var agentError: ChatErrorEvent?
    /// Why the last request failed.
    public private(set) var lastError: String?
    /// The auto-reply loop's progress, as last announced (`auto_reply` events).
    public private(set) var autoReply: AutoReplyProgress?
    /// The id of the last event applied.
    public private(set) var lastEventID = 0
    /// Events applied (each id once).
    public private(set) var eventCount = 0
    /// The reconnect policy of the stream; takes effect when ``load()`` opens it.
    public var policy = ReconnectPolicy()
    /// Page size of ``load()`` and ``loadEarlier()``.
    public var pageSize = 50

    @ObservationIgnored private var earlierCursor: String?
    @ObservationIgnored private var streamTask: Task<Void, Never>?
    @ObservationIgnored private var indexByID: [String: Int] = [:]

    /// A model with nothing read yet; call ``load()``.
    public init(client: RalphClient, conversationID: String) {
        self.client = client
        self.conversationID = conversationID
    }

    /// Whether a turn is running (the composer can steer or interrupt).
    public var isBusy: Bool { currentTurnID != nil || status != .idle }

    /// The permission mode the agent reports it is in now (it can differ from the one the conversation was created
    /// with, e.g. after leaving plan mode).
    public var permissionMode: String? { conversation?.agentPermissionMode ?? conversation?.permissionMode }

    /// What "allow for this session" granted in this conversation, oldest first; each can be revoked.
    public var sessionRules: [SessionRule] { conversation?.sessionRules ?? [] }

    /// One line saying what the agent is doing, for a status bar: nil when idle.
    public var statusLine: String? {
        switch status {
        case .idle: nil
        case .running: "Working…"
        case .awaitingApproval: pendingApprovals.count > 1 ? "Waiting for \(pendingApprovals.count) approvals" : "Waiting for an approval"
        case .stalled: "No output for \(Self.duration(stalledFor ?? 0)) — the turn may be stuck; you can interrupt it"
        case .retrying: retry.map(Self.describe) ?? "Retrying the model API…"
        }
    }

    /// `Retrying the model API (attempt 3 of 10, HTTP 529): overloaded`.
    public static func describe(_ retry: APIRetry) -> String {
        var detail = "attempt \(retry.attempt)" + (retry.maxRetries.map { " of \($0)" } ?? "")
        if let status = retry.errorStatus { detail += ", HTTP \(status)" }
        return "Retrying the model API (\(detail)): \(retry.error)"
    }

    static func duration(_ seconds: Int) -> String {
        seconds < 60 ? "\(seconds) s" : seconds < 3600 ? "\(seconds / 60) min" : "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }

    // MARK: - Loading

    /// Loads the conversation, its newest messages and pending approvals, then follows its event stream.
    public func load() async {
        lastError = nil
        do {
            conversation = try await client.conversation(conversationID)
            let page = try await client.messages(conversationID, limit: pageSize)
            setMessages(page.items)
            hasEarlier = page.hasMore
            earlierCursor = page.nextCursor
            lastEventID = page.lastEventId ?? 0
            pendingApprovals = try await client.approvals(state: .pending, conversationID: conversationID)
            status = conversation?.status ?? .idle
            retry = conversation?.retry
        } catch {
            lastError = error.description
            connection = .error(error.description)
            return
        }
        openStream()
    }

    /// Prepends the page of messages before the oldest one shown.
    public func loadEarlier() async {
        guard hasEarlier, let cursor = earlierCursor, !isLoadingEarlier else { return }
        isLoadingEarlier = true
        defer { isLoadingEarlier = false }
        do {
            let page = try await client.messages(conversationID, before: cursor, limit: pageSize)
            let known = Set(messages.map(\.id))
            setMessages(page.items.filter { !known.contains($0.id) } + messages)
            hasEarlier = page.hasMore
            earlierCursor = page.nextCursor
        } catch {
            lastError = error.description
        }
    }

    /// Closes the event stream; what is shown stays. ``load()`` reads everything again and reopens it.
    public func disconnect() {
        streamTask?.cancel()
        streamTask = nil
        connection = .disconnected
    }

    private func openStream() {
        streamTask?.cancel()
        let stream = client.conversationEvents(conversationID, after: lastEventID, policy: policy)
        streamTask = stream.follow(by: self) { model, update in
            switch update {
            case .state(let state):
                model.connection = state
                model.reconnectAttempts = state.reconnectAttempts(after: model.reconnectAttempts)
            case .event(let event):
                model.receive(event)
            case .end:
                break
            }
        }
    }

    // MARK: - Actions

    /// Sends a message (queued behind a running turn, or steering it). Returns its turn id.
    @discardableResult
    public func send(_ text: String, mode: SendMode = .queue) async -> String? {
        do {
            let response = try await client.sendMessage(conversationID, text: text, mode: mode)
            lastError = nil
            return response.turnId
        } catch {
            lastError = error.description
            return nil
        }
    }

    /// Revokes a session rule: the calls it covered ask again from now on.
    @discardableResult
    public func revoke(_ ruleID: String) async -> Bool {
        do {
            _ = try await client.revokeSessionRule(conversationID, ruleID: ruleID)
            conversation?.sessionRules.removeAll { $0.id == ruleID }
            lastError = nil
            return true
        } catch {
            lastError = error.description
            return false
        }
    }

    /// Interrupts the running turn (the agent process stays); a failure is kept in ``lastError``.
    public func interrupt() async {
        do {
            _ = try await client.interrupt(conversationID)
            lastError = nil
        } catch {
            lastError = error.description
        }
    }

    /// Answers an approval: allow, allow for the session, or deny with a message for the agent.
    @discardableResult
    public func decide(_ approvalID: String, _ decision: ApprovalDecision, message: String? = nil) async -> Bool {
        do {
            let approval = try await client.decide(approvalID, decision, message: message)
            pendingApprovals.removeAll { $0.id == approval.id }
            lastError = nil
            return true
        } catch {
            lastError = error.description
            return false
        }
    }

    // MARK: - Applying events

    /// Applies one event of the conversation stream (ids at or below the last one are ignored).
    public func receive(_ event: SSEParser.Event) {
        if let id = event.id.flatMap(Int.init) {
            guard id > lastEventID else { return }
            lastEventID = id
        }
        guard let decoded = try? ChatEvent.decode(name: event.event, data: Data(event.data.utf8)) else { return }
        eventCount += 1
        apply(decoded)
    }

    func apply(_ event: ChatEvent) {
        switch event {
        case .turnStart(let e):
            currentTurnID = e.turnId
            streamingText = ""
            agentError = nil
            if let id = e.messageId {
                // A turn the agent started by itself shows why, as a note rather than as something the person said.
                let role: MessageRole = e.origin == .agent ? .system : .user
                upsert(ChatMessage(id: id, conversationId: conversationID, turnId: e.turnId, role: role, text: e.text, createdAt: Timestamp.now()))
            }
        case .chunk(let e):
            streamingText += e.text
        case .segmentEnd(let e):
            if index(of: e.messageId) == nil {
                upsert(ChatMessage(id: e.messageId, conversationId: conversationID, turnId: e.turnId, role: .assistant, text: streamingText, createdAt: Timestamp.now()))
            }
            streamingText = ""
        case .toolStart(let e):
            let messageID = e.messageId ?? "tools-\(e.turnId)"
            var message =
                index(of: messageID).map { messages[$0] }
                ?? ChatMessage(id: messageID, conversationId: conversationID, turnId: e.turnId, role: .assistant, text: "", createdAt: Timestamp.now())
            if !message.toolCalls.contains(where: { $0.toolUseId == e.toolUseId }) {
                message.toolCalls.append(ToolCall(toolUseId: e.toolUseId, name: e.name, input: e.input))
            }
            upsert(message)
        case .toolEnd(let e):
            guard let i = messages.lastIndex(where: { $0.toolCalls.contains { $0.toolUseId == e.toolUseId } }),
                let j = messages[i].toolCalls.firstIndex(where: { $0.toolUseId == e.toolUseId })
            else { return }
            messages[i].toolCalls[j].output = e.output
            messages[i].toolCalls[j].isError = e.isError
            if let diffs = e.diffs { messages[i].toolCalls[j].diffs = diffs }
        case .permissionRequired(let e):
            guard !pendingApprovals.contains(where: { $0.id == e.approvalId }) else { return }
            status = .awaitingApproval
            pendingApprovals.append(
                Approval(
                    id: e.approvalId, conversationId: conversationID, turnId: e.turnId, toolUseId: e.toolUseId, toolName: e.toolName, input: e.input,
                    suggestions: e.suggestions, sessionRule: e.sessionRule, description: e.description, displayName: e.displayName,
                    blockedPath: e.blockedPath, reason: e.reason, diffs: e.diffs, createdAt: Timestamp.now()
                )
            )
        case .permissionResolved(let e):
            pendingApprovals.removeAll { $0.id == e.approvalId }
        case .complete(let e):
            flushStreamingText(turnID: e.turnId)
            if let id = e.messageId, let i = index(of: id) {
                messages[i].costUsd = e.costUsd
                messages[i].usage = e.usage
            }
            if currentTurnID == e.turnId { currentTurnID = nil }
            conversation?.totalCostUsd += e.costUsd ?? 0
        case .error(let e):
            if let turn = e.turnId { flushStreamingText(turnID: turn) }
            agentError = e
            if e.turnId == nil || currentTurnID == e.turnId { currentTurnID = nil }
        case .titleUpdate(let e):
            conversation?.title = e.title
        case .status(let e):
            status = e.status
            stalledFor = e.status == .stalled ? e.silentSecs : nil
            retry = e.status == .retrying ? e.retry : nil
            conversation?.status = e.status
            conversation?.retry = retry
            conversation?.queued = e.queued
            if e.status == .idle { currentTurnID = nil } else if let turn = e.turnId { currentTurnID = turn }
        case .autoReply(let progress):
            autoReply = progress
        case .permissions(let e):
            conversation?.agentPermissionMode = e.permissionMode
            conversation?.sessionRules = e.sessionRules
        }
    }

    /// Text streamed without a `segment_end` (the stream was cut): shown as a message rather than lost.
    private func flushStreamingText(turnID: String) {
        guard !streamingText.isEmpty else { return }
        upsert(ChatMessage(id: "partial-\(turnID)-\(messages.count)", conversationId: conversationID, turnId: turnID, role: .assistant, text: streamingText, createdAt: Timestamp.now()))
        streamingText = ""
    }

    // MARK: - Message list

    private func setMessages(_ list: [ChatMessage]) {
        messages = list
        reindex()
    }

    private func reindex() {
        indexByID = Dictionary(messages.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func index(of id: String) -> Int? { indexByID[id] }

    private func upsert(_ message: ChatMessage) {
        if let i = index(of: message.id) {
            messages[i] = message
        } else {
            messages.append(message)
            indexByID[message.id] = messages.count - 1
        }
    }
}
