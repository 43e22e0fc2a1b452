import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The conversations list: pinned first, then newest activity first, page by page, kept live by the global stream
/// (`conversation.updated`, `conversation.removed`), with new / pin / rename / archive / delete.
///
/// - Pinned conversations are read whole (up to 200); the others come in pages of ``pageSize``: ``rowAppeared(_:)``
///   loads the next page when the last row shows (infinite scroll).
/// - Archived conversations are hidden unless ``showArchived``; one archived elsewhere leaves the list.
/// - While the stream is not connected the list is read again every ``pollInterval`` (a proxy may block streams). When
///   the stream comes back without being able to replay what it missed, the list is read again too.
@MainActor
@Observable
public final class ConversationsListModel: LiveFeed, ActionReporting {
    public let client: RalphClient
    public let capabilities: Capabilities

    /// Pinned first, then by last activity, newest first.
    public private(set) var conversations: [Conversation] = []
    public private(set) var showArchived = false
    /// More unpinned conversations than loaded.
    public private(set) var hasMore = false
    public private(set) var hasLoaded = false
    public private(set) var isLoading = false
    public private(set) var isLoadingMore = false
    public internal(set) var lastError: String?
    public private(set) var connection: ConnectionState = .disconnected
    /// True while the list is kept current by polling because the stream is down.
    public var isPolling: Bool { polling.isPolling }
    /// Said once after an action (`Pinned`, `Conversation deleted`).
    public internal(set) var notice: String?
    public var pageSize = 30
    public var pollInterval: Duration = .seconds(10)
    public var policy = ReconnectPolicy()

    @ObservationIgnored private var cursor: String?
    @ObservationIgnored private var streamTask: Task<Void, Never>?
    @ObservationIgnored private let polling = PollingFallback()
    @ObservationIgnored private var lastGlobalEventID: String?
    @ObservationIgnored private var seenWhileLoading: [String: Conversation?]?

    public init(client: RalphClient, capabilities: Capabilities) {
        self.client = client
        self.capabilities = capabilities
    }

    // MARK: - What the screen shows

    public var rows: [ConversationRow] { conversations.map(ConversationRow.init) }

    /// `12 conversations`, `30+ conversations` while more can be loaded.
    public var countText: String {
        let n = conversations.count
        return "\(n)" + (hasMore ? "+" : "") + (n == 1 ? " conversation" : " conversations")
    }

    /// What an empty list says: a title and what to do.
    public var emptyText: (title: String, detail: String)? {
        guard hasLoaded, conversations.isEmpty else { return nil }
        let title = showArchived ? "No conversations yet." : "No conversations yet (archived ones are hidden)."
        let detail =
            capabilities.canChat
            ? "Start one with “New conversation”: pick a folder of the workspace and talk to Claude Code or Codex there."
            : "An operator can start one; you will see it here."
        return (title, detail)
    }

    public var canCreate: Bool { capabilities.canChat }

    /// Working directories of the conversations loaded, most recently active first, each once.
    public var recentDirectories: [String] {
        var seen: Set<String> = []
        return conversations.sorted { Self.activityKey($0) > Self.activityKey($1) }.map(\.cwd).filter { seen.insert($0).inserted }
    }

    /// A form for a new conversation, offering the recent directories.
    public func newConversation() -> NewConversationModel {
        NewConversationModel(client: client, directory: recentDirectories.first ?? ".", recentDirectories: recentDirectories)
    }

    public func actions(for id: String) -> [ConversationAction] {
        guard let conversation = conversations.first(where: { $0.id == id }) else { return [] }
        return ConversationAction.available(for: conversation, capabilities: capabilities)
    }

    /// The actions a row offers as swipes from one edge, destructive last.
    public func swipeActions(for id: String, leadingEdge: Bool) -> [ConversationAction] {
        actions(for: id).filter { $0.swipesFromLeadingEdge == leadingEdge }.sorted { !$0.isDestructive && $1.isDestructive }
    }

    public func deleteConfirmation(for id: String) -> ChatConfirmation? {
        conversations.first { $0.id == id }.map(ConversationAction.deleteConfirmation)
    }

    // MARK: - Loading

    /// Loads the list and keeps it current until ``suspend()``.
    public func start() async {
        await refresh()
        openStream()
    }

    /// Reads the pinned conversations and the first page of the others again (pull to refresh).
    public func refresh() async {
        isLoading = true
        seenWhileLoading = [:]
        defer {
            isLoading = false
            seenWhileLoading = nil
        }
        do {
            let pinned = try await client.conversations(limit: 200, pinned: true, includeArchived: showArchived)
            let page = try await client.conversations(limit: pageSize, pinned: false, includeArchived: showArchived)
            var list = pinned.items
            list += page.items.filter { item in !list.contains { $0.id == item.id } }
            conversations = list
            cursor = page.nextCursor
            hasMore = page.hasMore
            // What the stream said while the lists were read is newer than them.
            for (id, change) in seenWhileLoading ?? [:] {
                if let change { upsert(change) } else { remove(id) }
            }
            sort()
            hasLoaded = true
            lastError = nil
        } catch {
            lastError = error.description
        }
    }

    /// Loads the next page of unpinned conversations.
    public func loadMore() async {
        guard hasMore, let cursor, !isLoadingMore else { return }
        isLoadingMore = true
        defer { isLoadingMore = false }
        do {
            let page = try await client.conversations(limit: pageSize, cursor: cursor, pinned: false, includeArchived: showArchived)
            let known = Set(conversations.map(\.id))
            conversations += page.items.filter { !known.contains($0.id) }
            sort()
            self.cursor = page.nextCursor
            hasMore = page.hasMore
            lastError = nil
        } catch {
            lastError = error.description
        }
    }

    /// A row came on screen: the last one loads the next page.
    public func rowAppeared(_ id: String) async {
        guard id == conversations.last?.id else { return }
        await loadMore()
    }

    /// Shows or hides archived conversations (reads the list again).
    public func setShowArchived(_ show: Bool) async {
        guard show != showArchived else { return }
        showArchived = show
        await refresh()
    }

    // MARK: - Live

    public func suspend() {
        streamTask?.cancel()
        streamTask = nil
        polling.stop()
        connection = .disconnected
    }

    /// Opens the stream again after the last event received (the server replays what was missed, or says it cannot and
    /// the list is read again).
    public func resume() async {
        guard streamTask == nil else { return }
        if !hasLoaded { await refresh() }
        openStream()
    }

    private func openStream() {
        streamTask?.cancel()
        let stream = EventStream(client: client, path: "/api/events", lastEventID: lastGlobalEventID, policy: policy)
        streamTask = stream.follow(by: self) { list, update in await list.apply(update) }
        startPolling()
    }

    private func apply(_ update: EventStream.Update) async {
        switch update {
        case .state(let state):
            connection = state
            if state == .connected { polling.streamConnected() }
        case .event(let event):
            if let id = event.id { lastGlobalEventID = id }
            await receive(event)
        case .end:
            break
        }
    }

    /// One event of the global stream.
    func receive(_ event: SSEParser.Event) async {
        let data = Data(event.data.utf8)
        switch event.event {
        case ChatEventName.conversationUpdated:
            guard let conversation = try? WireJSON.decode(Conversation.self, from: data) else { return }
            seenWhileLoading?.updateValue(conversation, forKey: conversation.id)
            upsert(conversation)
            sort()
        case ChatEventName.conversationRemoved:
            guard let removed = try? WireJSON.decode(ConversationRemoved.self, from: data) else { return }
            seenWhileLoading?.updateValue(nil, forKey: removed.id)
            remove(removed.id)
        case "ready":
            // `resumed: false`: the server could not replay what this client missed; read the list again.
            let resumed = (try? JSONParser.parse(event.data))?.objectValue?["resumed"]?.boolValue ?? false
            if !resumed && hasLoaded { await refresh() }
        default:
            break
        }
    }

    private func upsert(_ conversation: Conversation) {
        if conversation.archived && !showArchived {
            remove(conversation.id)
            return
        }
        if let index = conversations.firstIndex(where: { $0.id == conversation.id }) {
            conversations[index] = conversation
        } else {
            conversations.append(conversation)
        }
    }

    private func remove(_ id: String) {
        conversations.removeAll { $0.id == id }
    }

    private func sort() {
        conversations.sort(by: Self.ordered)
    }

    /// Pinned first; then the most recent activity; then the id, so the order is total.
    nonisolated static func ordered(_ a: Conversation, _ b: Conversation) -> Bool {
        if a.pinned != b.pinned { return a.pinned }
        let ka = activityKey(a)
        let kb = activityKey(b)
        if ka != kb { return ka > kb }
        return a.id > b.id
    }

    nonisolated static func activityKey(_ c: Conversation) -> Double {
        Timestamp.parse(c.lastActivityAt)?.timeIntervalSince1970 ?? 0
    }

    /// Reads the list every ``pollInterval`` while the stream is not connected.
    private func startPolling() {
        polling.start(
            interval: { [weak self] in self?.pollInterval }, isConnected: { [weak self] in self.map { $0.connection == .connected } },
            refresh: { [weak self] in await self?.refresh() }
        )
    }

    // MARK: - Actions

    /// Pins, unpins, archives or unarchives a conversation.
    @discardableResult
    public func perform(_ action: ConversationAction, on id: String) async -> Bool {
        guard let patch = ConversationAction.patch(for: action) else { return false }
        let updated = await report(done: action.doneNotice) { () async throws(RalphClientError) in
            try await client.updateConversation(id, patch)
        }
        guard let updated else { return false }
        upsert(updated)
        sort()
        return true
    }

    /// Renames a conversation; returns why not, nil when done.
    public func rename(_ id: String, to title: String) async -> String? {
        if let problem = ConversationAction.renameProblem(title) { return problem }
        do {
            upsert(try await client.updateConversation(id, PatchConversationRequest(title: title.trimmingCharacters(in: .whitespacesAndNewlines))))
            sort()
            notice = ConversationAction.rename.doneNotice
            return nil
        } catch {
            return error.description
        }
    }

    /// Deletes a conversation (after ``deleteConfirmation(for:)``).
    @discardableResult
    public func delete(_ id: String) async -> Bool {
        let deleted: Void? = await report(done: ConversationAction.delete.doneNotice) { () async throws(RalphClientError) in
            try await client.deleteConversation(id)
        }
        guard deleted != nil else { return false }
        remove(id)
        return true
    }

    /// A conversation created from ``newConversation()``: shown at once, before its event arrives; `problem` (its first
    /// message could not be sent) becomes the notice.
    public func created(_ conversation: Conversation, problem: String? = nil) {
        upsert(conversation)
        sort()
        notice = problem
    }

    /// What to show in a toast now: the notice, else the last error.
    public var toast: String? { notice ?? lastError }

    /// The toast was shown.
    public func clearNotice() {
        notice = nil
        lastError = nil
    }
}
