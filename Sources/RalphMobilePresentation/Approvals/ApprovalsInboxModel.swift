import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The approvals inbox: every tool call waiting for a person across conversations, live (the SDK's
/// ``RalphMobileKit/ApprovalsModel``), optionally with the decided ones, each opening the approval sheet; operators
/// select several and allow or deny them at once.
@MainActor
@Observable
public final class ApprovalsInboxModel: LiveFeed {
    public enum Filter: String, Hashable, Sendable, CaseIterable, Identifiable {
        case pending
        case all
        public var id: String { rawValue }
        public var label: String { self == .pending ? "Waiting" : "All, with decided" }
    }

    public let client: RalphClient
    public let capabilities: Capabilities
    /// The SDK model: pending approvals, live from the global stream.
    public let approvals: ApprovalsModel

    public private(set) var filter: Filter = .pending
    /// Decided approvals (read for ``Filter/all``), newest first.
    public private(set) var decided: [Approval] = []
    public private(set) var selection: Set<String> = []
    public private(set) var batchResult: ApprovalBatchResult?
    public private(set) var notice: String?
    public private(set) var lastError: String?
    public private(set) var isDeciding = false
    /// Conversation titles read so far, by id.
    public private(set) var titles: [String: String] = [:]

    private var answered: [String: Approval] = [:]
    @ObservationIgnored private var asked: Set<String> = []
    @ObservationIgnored private var hasConnected = false
    @ObservationIgnored private var running = false
    /// Where the SDK model's changes are reported while watched; finished by ``suspend()``, so a change reported to
    /// an older watch is never handled.
    @ObservationIgnored private var changes: AsyncStream<Void>.Continuation?
    /// The watch of the SDK model and the reads each change starts; ``suspend()`` cancels them.
    @ObservationIgnored let tasks = ModelTasks()

    public init(client: RalphClient, capabilities: Capabilities) {
        self.client = client
        self.capabilities = capabilities
        approvals = ApprovalsModel(client: client)
    }

    // MARK: - What the screen shows

    /// The approvals still waiting; one answered here is hidden at once (the stream confirms it a moment later).
    public var pending: [Approval] { approvals.pending.filter { answered[$0.id] == nil } }

    /// Newest first.
    public var rows: [ApprovalRow] {
        var list = pending
        if filter == .all {
            let shown = Set(list.map(\.id))
            list += (Array(answered.values) + decided).filter { !shown.contains($0.id) }
            var seen: Set<String> = []
            list = list.filter { seen.insert($0.id).inserted }
        }
        return list.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map {
            ApprovalRow($0, title: title(of: $0.conversationId), selected: selection.contains($0.id))
        }
    }

    /// `3 waiting`, nil when none.
    public var countText: String? { pending.isEmpty ? nil : "\(pending.count) waiting" }

    public var emptyText: (title: String, detail: String)? {
        guard rows.isEmpty else { return nil }
        return (
            filter == .pending ? "Nothing is waiting for you" : "No approvals yet",
            "When Claude asks to run a tool in a conversation, the request shows up here" + (capabilities.canDecideApprovals ? " for you to allow or deny." : ".")
        )
    }

    /// The batch bar shows for operators while something waits.
    public var showsBatchBar: Bool { capabilities.canDecideApprovals && !pending.isEmpty }
    public var selectedCount: Int { selectedPending.count }
    public var allowSelectedLabel: String { selectedCount > 0 ? "Allow \(selectedCount)" : "Allow selected" }
    public var denySelectedLabel: String { selectedCount > 0 ? "Deny \(selectedCount)" : "Deny selected" }
    public var canDecideSelected: Bool { capabilities.canDecideApprovals && selectedCount > 0 && !isDeciding }

    /// Whether every pending row is selected (a checkbox "Select all"); `nil` when some are.
    public var allSelected: Bool? {
        let ids = pending.map(\.id)
        if !ids.isEmpty && ids.allSatisfy(selection.contains) { return true }
        return selectedCount == 0 ? false : nil
    }

    /// An SF Symbol for the "Select all" checkbox: checked, mixed or empty.
    public var selectAllSymbol: String {
        switch allSelected {
        case true?: "checkmark.square"
        case nil: "minus.square"
        case false?: "square"
        }
    }

    public var selectAllLabel: String { allSelected == true ? "Select none" : "Select all" }

    private var selectedPending: [Approval] { pending.filter { selection.contains($0.id) } }

    private func title(of conversationID: String) -> String { titles[conversationID] ?? "a conversation" }

    /// The sheet for one row.
    public func sheet(for id: String) -> ApprovalSheet? {
        guard let approval = pending.first(where: { $0.id == id }) ?? answered[id] ?? decided.first(where: { $0.id == id }) else { return nil }
        return ApprovalSheet(approval, canDecide: capabilities.canDecideApprovals, conversationTitle: titles[approval.conversationId])
    }

    // MARK: - Selection

    public func toggleSelection(_ id: String) {
        guard capabilities.canDecideApprovals, pending.contains(where: { $0.id == id }) else { return }
        if selection.contains(id) { selection.remove(id) } else { selection.insert(id) }
    }

    /// Selects every pending row, or none when all are selected.
    public func toggleSelectAll() {
        guard capabilities.canDecideApprovals else { return }
        selection = allSelected == true ? [] : Set(pending.map(\.id))
    }

    // MARK: - Loading and live

    /// Loads the pending approvals and follows the global stream until ``suspend()``.
    public func start() async {
        running = true
        await approvals.start()
        watch()
        await readTitles()
        if filter == .all { await readDecided() }
    }

    public func suspend() {
        running = false
        changes?.finish()
        changes = nil
        tasks.cancelAll()
        approvals.stop()
    }

    /// Reads everything again and follows the stream.
    public func resume() async {
        guard !running else { return }
        await start()
    }

    /// Shows only what waits, or also what was decided.
    public func setFilter(_ filter: Filter) async {
        guard filter != self.filter else { return }
        self.filter = filter
        if filter == .all { await readDecided() }
    }

    /// Reads everything again (pull to refresh).
    public func refresh() async {
        await approvals.refresh()
        if filter == .all { await readDecided() }
        await readTitles()
        lastError = approvals.lastError
    }

    private func readDecided() async {
        do {
            let read = try await client.approvals(state: nil).filter { $0.state != .pending }
            // Suspended meanwhile: the read was cancelled, and what it brought is not shown.
            guard !Task.isCancelled else { return }
            decided = read
            lastError = nil
        } catch {
            guard !Task.isCancelled else { return }
            lastError = error.description
        }
        await readTitles()
    }

    /// Reads the title of each conversation not asked about yet.
    private func readTitles() async {
        let ids = Set((approvals.pending + decided).map(\.conversationId)).subtracting(asked)
        for id in ids.sorted() {
            asked.insert(id)
            do {
                titles[id] = ConversationWords.title(try await client.conversation(id))
            } catch {
                if case .notFound = error { titles[id] = "a deleted conversation" } else { asked.remove(id) }
            }
        }
    }

    /// Follows the SDK model: new approvals need their conversation's title, the decided list grows as approvals are
    /// answered, selections of answered approvals are dropped, and after a reconnection the pending list is read again
    /// (the stream may not have been able to replay what was missed).
    private func watch() {
        changes?.finish()
        // Observation reports a change before it is made: the watch handles it on the main actor, after it was made.
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = continuation
        track(continuation)
        tasks.spawn { [weak self] in
            for await _ in stream {
                guard let self, self.running else { return }
                self.track(continuation)
                self.changed()
            }
        }
    }

    /// Reports the next change of what the inbox follows (observation reports one change per registration).
    private func track(_ changes: AsyncStream<Void>.Continuation) {
        withObservationTracking {
            _ = approvals.pending
            _ = approvals.connection
        } onChange: {
            changes.yield()
        }
    }

    private func changed() {
        let ids = Set(approvals.pending.map(\.id))
        selection = selection.filter(ids.contains)
        let reconnected = approvals.connection == .connected && hasConnected
        if approvals.connection == .connected { hasConnected = true }
        tasks.spawn { [weak self] in
            guard let self else { return }
            if reconnected { await self.approvals.refresh() }
            await self.readTitles()
            if self.filter == .all { await self.readDecided() }
        }
    }

    // MARK: - Deciding

    /// Answers one approval from its sheet.
    @discardableResult
    public func decide(_ id: String, _ decision: ApprovalDecision, message: String? = nil) async -> ApprovalOutcome {
        let outcome = await ApprovalOutcome.decide(id, decision, message: message, client: client)
        switch outcome {
        case .decided(let approval):
            answered[id] = approval
            selection.remove(id)
            notice = ApprovalSheet.decidedNotice(toolName: approval.toolName, decision: decision)
        case .alreadyAnswered:
            selection.remove(id)
            notice = outcome.message
            await approvals.refresh()
        case .invalid, .failed:
            break
        }
        return outcome
    }

    /// What the batch sheet asks.
    public func batchConfirmation(_ decision: ApprovalDecision) -> ApprovalBatchConfirmation? {
        let chosen = selectedPending
        guard !chosen.isEmpty else { return nil }
        let deny = decision == .deny
        let noun = chosen.count == 1 ? "tool call" : "tool calls"
        return ApprovalBatchConfirmation(
            decision: decision, title: (deny ? "Deny " : "Allow ") + "\(chosen.count) \(noun)?",
            lines: chosen.map { "\($0.toolName)  \(ChatToolCallItem.summary(name: $0.toolName, input: $0.input)) · \(title(of: $0.conversationId))" },
            asksForMessage: deny, confirmLabel: deny ? "Deny all" : "Allow all"
        )
    }

    /// Allows or denies every selected pending approval at once; ``batchResult`` says what became of each.
    @discardableResult
    public func decideSelected(_ decision: ApprovalDecision, message: String? = nil) async -> Bool {
        let chosen = selectedPending
        guard capabilities.canDecideApprovals, !chosen.isEmpty, !isDeciding else { return false }
        let text = decision == .deny ? message.flatMap(ApprovalSheet.denyMessage) : nil
        if let text, let problem = ApprovalSheet.denyMessageProblem(text) {
            lastError = problem
            return false
        }
        isDeciding = true
        defer { isDeciding = false }
        let byID = Dictionary(chosen.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let results = await approvals.decide(chosen.map(\.id), decision, message: text)
        guard !results.isEmpty else {
            lastError = approvals.lastError
            return false
        }
        var lines: [ApprovalBatchResult.Line] = []
        for result in results {
            let asked = byID[result.id]
            let what = asked.map { "\($0.toolName) \(ChatToolCallItem.summary(name: $0.toolName, input: $0.input))" } ?? result.id
            if let approval = result.approval {
                answered[result.id] = approval
                lines.append(.init(id: result.id, applied: true, text: what + " — " + ChatToolDecision.words(decision.rawValue)))
            } else {
                lines.append(.init(id: result.id, applied: false, text: what + " — " + (result.error ?? "not applied")))
            }
            selection.remove(result.id)
        }
        let applied = lines.filter(\.applied).count
        batchResult = ApprovalBatchResult(title: "\(applied) of \(results.count) \(ChatToolDecision.words(decision.rawValue))", lines: lines)
        notice = batchResult?.title
        lastError = nil
        return true
    }

    public func clearBatchResult() { batchResult = nil }
    /// What to show in a toast now: the notice, else the last error.
    public var toast: String? { notice ?? lastError }

    /// The toast was shown.
    public func clearNotice() {
        notice = nil
        lastError = nil
    }
}
