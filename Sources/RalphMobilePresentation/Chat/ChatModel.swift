import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// One conversation's screen: the SDK's ``RalphMobileKit/ConversationModel`` (messages, streaming text, approvals,
/// status) and ``RalphMobileKit/AutoReplyModel`` (the loop's settings and progress), with what the screen adds on top:
/// turns with markdown blocks, the composer and its send modes, the approval sheet that opens for each new request,
/// the permissions panel, the auto-reply status bar, the conversation's actions, and a stream that can be suspended and
/// resumed with no gap.
///
/// The stream: ``RalphMobileKit/ConversationModel/load()`` reads the conversation, its newest page and its pending
/// approvals, and opens its own stream; this model closes that one before it has run (nothing is awaited in between)
/// and follows the conversation itself from the same event id, so it sees each event before handing it to the SDK
/// model, which applies it. That is how it knows who answered an approval, forwards `auto_reply` progress without a
/// second connection, and resumes after ``suspend()`` from the last event applied.
@MainActor
@Observable
public final class ChatModel: LiveFeed, ActionReporting {
    public let conversationID: String
    public let client: RalphClient
    public let conversation: ConversationModel
    public let autoReply: AutoReplyModel
    public let capabilities: Capabilities
    /// The caller's key id (`whoami`), so rules it granted read "you".
    public let me: String?

    public var composer = ChatComposer()
    /// Why the last send was refused (the composer's text problem or the server's answer).
    public private(set) var composerError: String?
    /// Said under the composer after sending (`Queued as #2: …`), until that turn starts.
    public private(set) var composerNote: String?
    public private(set) var connection: ConnectionState = .disconnected
    public private(set) var reconnectAttempts = 0
    public private(set) var isLoaded = false
    public private(set) var isSending = false
    /// The conversation no longer exists on the server (deleted here or elsewhere).
    public private(set) var isDeleted = false
    /// The server ended the stream for good.
    public private(set) var isEnded = false
    /// Messages sent and not started yet, oldest first.
    public private(set) var queued: [ChatQueuedMessage] = []
    /// Something to tell the person once (a toast): an approval answered elsewhere, a rule revoked, an action done.
    public internal(set) var notice: String?
    /// Why the last action failed.
    public internal(set) var lastError: String?
    /// Answered approvals by tool use id, for the line under their tool call.
    public private(set) var decisions: [String: ChatToolDecision] = [:]
    /// The conversation as last read from the server: version, pin, archive, rule use counts.
    public internal(set) var info: Conversation?
    public var policy = ReconnectPolicy()

    private var dismissedApprovals: Set<String> = []
    private var answeredApprovals: Set<String> = []
    private var reviewedApproval: String?
    private var noteTurn: String?
    @ObservationIgnored private var streamTask: Task<Void, Never>?
    /// Reads started by stream events (decisions, the conversation's info); ``suspend()`` cancels them.
    @ObservationIgnored let tasks = ModelTasks()
    @ObservationIgnored private var markdownCache: [String: (text: String, markdown: ChatMarkdown)] = [:]

    public init(client: RalphClient, conversationID: String, capabilities: Capabilities, me: String? = nil) {
        self.client = client
        self.conversationID = conversationID
        self.capabilities = capabilities
        self.me = me
        conversation = ConversationModel(client: client, conversationID: conversationID)
        autoReply = AutoReplyModel(client: client, conversationID: conversationID)
    }

    // MARK: - What the screen shows

    /// The transcript, oldest turn first.
    public var turns: [ChatTurn] {
        let input = ChatTranscript.Input(
            messages: conversation.messages, streamingText: conversation.streamingText, currentTurnID: conversation.currentTurnID,
            isBusy: conversation.isBusy, pendingApprovals: conversation.pendingApprovals, decisions: decisions, agentError: conversation.agentError
        )
        return ChatTranscript.turns(input, markdown: markdown(for:))
    }

    /// Shown when there is nothing yet.
    public var emptyText: String? {
        guard isLoaded, conversation.messages.isEmpty, conversation.streamingText.isEmpty, queued.isEmpty else { return nil }
        return capabilities.canChat && !isDeleted ? "No messages yet. Write the first one below." : "No messages yet."
    }

    /// Across the top once the conversation is gone.
    public var banner: String? { isDeleted ? "This conversation was deleted." : nil }

    public var header: ChatHeader {
        ChatHeader(
            conversation: conversation.conversation, info: info, status: conversation.status, connection: connection, reconnects: reconnectAttempts
        )
    }

    /// What the agent is doing (`Working…`, `Waiting for an approval`, `Retrying the model API (…)`, `No output for …`);
    /// nil when idle.
    public var workingLine: String? { conversation.statusLine }
    public var workingTone: ChatTone { ConversationWords.tone(conversation.status) }

    public var sendOptions: ChatSendOptions {
        ChatSendOptions(canChat: capabilities.canChat, isBusy: conversation.isBusy, isDeleted: isDeleted, isEnded: isEnded)
    }

    public var canLoadEarlier: Bool { conversation.hasEarlier }
    public var isLoadingEarlier: Bool { conversation.isLoadingEarlier }

    public var permissions: ChatPermissionsPanel {
        let fresh = Dictionary((info?.sessionRules ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // Which rules exist follows the stream (in order with the other events); their use counts come with each reading.
        let rules = conversation.sessionRules.map { rule in
            guard let newer = fresh[rule.id], newer.uses > rule.uses else { return rule }
            return newer
        }
        return ChatPermissionsPanel(
            agentMode: conversation.conversation?.agentPermissionMode ?? info?.agentPermissionMode, createdMode: conversation.conversation?.permissionMode,
            agentVersion: info?.agentVersion ?? conversation.conversation?.agentVersion, rules: rules, me: me, canRevoke: capabilities.canDecideApprovals
        )
    }

    public var autoReplyBar: AutoReplyStatusBar { AutoReplyStatusBar(autoReply, canControl: capabilities.canControlAutoReply) }

    /// The conversation's actions (pin, rename, archive, delete) for this person.
    public var actions: [ConversationAction] {
        guard let current = info ?? conversation.conversation, !isDeleted else { return [] }
        return ConversationAction.available(for: current, capabilities: capabilities)
    }

    /// The approval sheet to show now: the one the person asked to review, else (for someone who may decide) the oldest
    /// pending approval not dismissed. It goes away by itself when the approval is answered, here or elsewhere.
    public var approvalSheet: ApprovalSheet? {
        let pending = conversation.pendingApprovals.filter { !answeredApprovals.contains($0.id) }
        if let reviewed = reviewedApproval, let approval = pending.first(where: { $0.id == reviewed }) {
            return ApprovalSheet(approval, canDecide: capabilities.canDecideApprovals)
        }
        guard capabilities.canDecideApprovals, !isDeleted else { return nil }
        return pending.first { !dismissedApprovals.contains($0.id) }.map { ApprovalSheet($0, canDecide: true) }
    }

    private func markdown(for message: ChatMessage) -> ChatMarkdown {
        if let cached = markdownCache[message.id], cached.text == message.text { return cached.markdown }
        let parsed = ChatMarkdown(message.text)
        markdownCache[message.id] = (message.text, parsed)
        return parsed
    }

    // MARK: - Loading and the stream

    /// Loads the conversation, its newest messages, its approvals and its auto-reply loop, then follows its events.
    public func load() async {
        await conversation.load()
        // The SDK model opened its stream as load() ended; its task has not run yet. This model follows instead.
        conversation.disconnect()
        guard let current = conversation.conversation else {
            await checkDeleted()
            lastError = conversation.lastError
            connection = .error(conversation.lastError ?? "the conversation could not be loaded")
            return
        }
        info = current
        lastError = nil
        await autoReply.load()
        await refreshDecisions()
        isLoaded = true
        openStream()
    }

    /// Closes the stream, keeping everything shown and where it stopped.
    public func suspend() {
        streamTask?.cancel()
        streamTask = nil
        tasks.cancelAll()
        connection = .disconnected
    }

    /// Follows the conversation again after the last event applied (everything missed meanwhile is replayed, nothing
    /// twice); loads it first if it never loaded.
    public func resume() async {
        guard !isDeleted, !isEnded, streamTask == nil else { return }
        guard isLoaded else {
            await load()
            return
        }
        openStream()
    }

    /// Whether the stream is open (or trying to open).
    public var isFollowing: Bool { streamTask != nil }

    private func openStream() {
        streamTask?.cancel()
        let stream = client.conversationEvents(conversationID, after: conversation.lastEventID, policy: policy)
        streamTask = stream.follow(by: self) { chat, update in
            switch update {
            case .state(let state):
                chat.connection = state
                chat.reconnectAttempts = state.reconnectAttempts(after: chat.reconnectAttempts)
                if case .error = state { await chat.checkDeleted() }
            case .event(let event):
                chat.receive(event)
            case .end:
                chat.isEnded = true
            }
        }
    }

    /// Applies one event: to the SDK model, and to what this model keeps beside it.
    func receive(_ event: SSEParser.Event) {
        let isNew = event.id.flatMap(Int.init).map { $0 > conversation.lastEventID } ?? true
        let decoded: ChatEvent? = isNew ? (try? ChatEvent.decode(name: event.event, data: Data(event.data.utf8))) : nil
        var resolved: Approval?
        if case .permissionResolved(let e)? = decoded { resolved = conversation.pendingApprovals.first { $0.id == e.approvalId } }
        conversation.receive(event)
        guard let decoded else { return }
        switch decoded {
        case .turnStart(let e):
            queued.removeAll { $0.id == e.turnId }
            if noteTurn == e.turnId {
                composerNote = nil
                noteTurn = nil
            }
        case .permissionResolved(let e):
            guard let approval = resolved else {
                // Allowed by a session rule without asking: its approval says which call it was.
                tasks.spawn { [weak self] in await self?.refreshDecisions() }
                tasks.spawn { [weak self] in await self?.refreshInfo() }
                return
            }
            if let tool = approval.toolUseId { decisions[tool] = ChatToolDecision(decision: e.decision, decidedBy: e.by, message: e.message) }
            if !answeredApprovals.contains(approval.id) {
                notice = ApprovalSheet.resolvedElsewhereNotice(toolName: approval.toolName, decision: e.decision, by: e.by)
            }
        case .complete:
            tasks.spawn { [weak self] in await self?.refreshInfo() }
        case .autoReply(let progress):
            autoReply.apply(progress)
        default:
            break
        }
    }

    /// After the stream gave up: a conversation that no longer exists is shown as deleted.
    private func checkDeleted() async {
        do {
            _ = try await client.conversation(conversationID)
        } catch {
            if case .notFound = error { markDeleted() }
        }
    }

    func markDeleted() {
        isDeleted = true
        suspend()
    }

    /// Reads the conversation again (version, pin, archive, cost, rule use counts).
    /// A failed read keeps the info shown (the stream's own errors say when the server is gone); a cancelled one
    /// (the model was suspended meanwhile) changes nothing.
    public func refreshInfo() async {
        if let fresh = try? await client.conversation(conversationID), !Task.isCancelled { info = fresh }
    }

    /// Reads how this conversation's approvals were answered.
    func refreshDecisions() async {
        guard let all = try? await client.approvals(state: nil, conversationID: conversationID), !Task.isCancelled else { return }
        for approval in all {
            guard let tool = approval.toolUseId, let decision = ChatToolDecision(approval) else { continue }
            decisions[tool] = decision
        }
    }

    public func loadEarlier() async { await conversation.loadEarlier() }

    // MARK: - Sending

    /// Sends the composer's text: queued behind a running turn (`.queue`), or stopping it and going next (`.steer`).
    /// Refused locally, without a request, while the text has a problem.
    @discardableResult
    public func send(mode: SendMode = .queue) async -> Bool {
        guard sendOptions.canSend, !isSending else { return false }
        if let problem = composer.problem {
            composerError = problem
            return false
        }
        let text = composer.text
        isSending = true
        defer { isSending = false }
        do {
            let response = try await client.sendMessage(conversationID, text: text, mode: mode)
            let entry = ChatQueuedMessage(turnID: response.turnId, text: text, mode: mode, position: response.queuedPosition)
            if !conversation.messages.contains(where: { $0.turnId == response.turnId }) { queued.append(entry) }
            composerNote = entry.note
            noteTurn = entry.note == nil ? nil : response.turnId
            if composer.text == text { composer.text = "" }
            composerError = nil
            return true
        } catch {
            composerError = error.description
            return false
        }
    }

    /// Stops the running turn; the process stays.
    @discardableResult
    public func interrupt() async -> Bool {
        do {
            _ = try await client.interrupt(conversationID)
            notice = "Interrupt sent."
            lastError = nil
            return true
        } catch {
            switch error {
            case .conflict(let why), .notRunning(let why): notice = "Nothing to interrupt: " + why
            default: lastError = error.description
            }
            return false
        }
    }

    // MARK: - Approvals

    /// Answers an approval from the sheet.
    @discardableResult
    public func decide(_ approvalID: String, _ decision: ApprovalDecision, message: String? = nil) async -> ApprovalOutcome {
        let approval = conversation.pendingApprovals.first { $0.id == approvalID }
        let outcome = await ApprovalOutcome.decide(approvalID, decision, message: message, client: client)
        switch outcome {
        case .decided(let answered):
            answeredApprovals.insert(approvalID)
            if let tool = answered.toolUseId, let made = ChatToolDecision(answered) { decisions[tool] = made }
            notice = ApprovalSheet.decidedNotice(toolName: approval?.toolName ?? answered.toolName, decision: decision)
        case .alreadyAnswered:
            answeredApprovals.insert(approvalID)
            notice = outcome.message
        case .invalid, .failed:
            break
        }
        if outcome.closesSheet, reviewedApproval == approvalID { reviewedApproval = nil }
        return outcome
    }

    /// The person closed the sheet without answering: it does not open again by itself.
    public func dismissApproval(_ approvalID: String) {
        dismissedApprovals.insert(approvalID)
        if reviewedApproval == approvalID { reviewedApproval = nil }
    }

    /// The sheet shown now was closed by the person (swiped away) without answering.
    public func dismissApprovalSheet() {
        if let id = approvalSheet?.id { dismissApproval(id) }
    }

    /// Opens the sheet of a pending approval again (its tool call's Review button; viewers see it without buttons).
    public func reviewApproval(_ approvalID: String) {
        dismissedApprovals.remove(approvalID)
        reviewedApproval = approvalID
    }

    /// Revokes a session rule: the calls it covered ask again from now on.
    @discardableResult
    public func revoke(_ ruleID: String) async -> Bool {
        let display = conversation.sessionRules.first { $0.id == ruleID }?.rule.display
        guard await conversation.revoke(ruleID) else {
            lastError = conversation.lastError
            return false
        }
        info?.sessionRules.removeAll { $0.id == ruleID }
        notice = display.map(ChatPermissionsPanel.revokedNotice)
        return true
    }
}
