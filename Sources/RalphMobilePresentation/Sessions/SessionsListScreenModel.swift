import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The sessions list screen: the SDK's live ``SessionsListModel`` (global stream, polling while it is down) plus what
/// the phone adds — rows ready to lay out, the All / Live / Done filter, sessions hidden on this device, the connection
/// line and the empty states; in a cluster, the host filter and the hosts section (each row says its host, an offline
/// host's runs are `unreachable`).
///
/// ```swift
/// let model = SessionsListScreenModel(client: client, hiddenStore: HiddenSessionsStore(fileURL: url, server: client.baseURL))
/// await model.start()
/// model.rows(now: .now)       // newest first, hidden ones left out unless showHidden
/// model.hide(row.id)          // swipe to hide; remembered in the store's file
/// ```
@MainActor
@Observable
public final class SessionsListScreenModel: LiveFeed {
    /// The SDK model this screen shows.
    public let list: SessionsListModel
    /// Where hidden ids are kept (nil: hiding lasts until the model goes away).
    public let hiddenStore: HiddenSessionsStore?
    /// Ids hidden on this device.
    public private(set) var hiddenIDs: Set<String> = []
    /// Show hidden sessions too (drawn as hidden, with an "Unhide" action).
    public var showHidden = false
    public var filter: SessionsFilter = .all
    /// Why the hidden ids could not be read or saved.
    public private(set) var storeError: String?
    /// True while a pull to refresh is under way.
    public private(set) var isRefreshing = false

    public init(client: RalphClient, hiddenStore: HiddenSessionsStore?) {
        list = SessionsListModel(client: client)
        self.hiddenStore = hiddenStore
        if let hiddenStore {
            do {
                hiddenIDs = try hiddenStore.load()
            } catch {
                storeError = error.description
            }
        }
    }

    /// Where the app keeps its hidden ids: `Application Support/RalphMobile/hidden-sessions.json`.
    public nonisolated static var defaultHiddenFileURL: URL {
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("RalphMobile", isDirectory: true).appendingPathComponent("hidden-sessions.json")
    }

    // MARK: - Loading

    /// Loads the list and keeps it live until ``suspend()``.
    public func start() async { await list.start() }

    /// Pull to refresh: reads the whole list now.
    public func refresh() async {
        isRefreshing = true
        await list.refresh()
        isRefreshing = false
    }

    /// Closes the global stream and stops polling (the app went to the background).
    public func suspend() { list.stop() }

    /// Reads the whole list again (nothing that changed meanwhile is missed) and reopens the stream.
    public func resume() async { await list.start() }

    /// Whether the list has been read at least once.
    public var hasLoaded: Bool { list.lastUpdated != nil }

    // MARK: - Hiding

    /// Hides a session on this device and remembers it.
    public func hide(_ id: String) {
        guard hiddenIDs.insert(id).inserted else { return }
        persist()
    }

    /// Shows a hidden session again.
    public func unhide(_ id: String) {
        guard hiddenIDs.remove(id) != nil else { return }
        persist()
    }

    /// Shows every hidden session again.
    public func unhideAll() {
        guard !hiddenIDs.isEmpty else { return }
        hiddenIDs = []
        persist()
    }

    private func persist() {
        guard let hiddenStore else { return }
        do {
            try hiddenStore.save(hiddenIDs)
            storeError = nil
        } catch {
            storeError = error.description
        }
    }

    /// Hidden sessions the server still lists.
    public var hiddenCount: Int { list.sessions.filter { hiddenIDs.contains($0.id) }.count }

    /// The "show hidden" switch's label, `Show hidden runs (2)`; nil (no switch) while nothing is hidden and the switch
    /// is off.
    public var hiddenToggleLabel: String? { Self.hiddenToggleLabel(hiddenCount: hiddenCount, showHidden: showHidden) }

    /// ``hiddenToggleLabel`` for a count and the switch's state.
    public nonisolated static func hiddenToggleLabel(hiddenCount: Int, showHidden: Bool) -> String? {
        hiddenCount > 0 || showHidden ? "Show hidden runs (\(hiddenCount))" : nil
    }

    // MARK: - What the screen shows

    /// Sessions of the host filtered on, not hidden (or all, with ``showHidden``), newest first.
    var visibleSessions: [Session] { list.filteredSessions.filter { showHidden || !hiddenIDs.contains($0.id) } }

    // MARK: - Hosts (a cluster)

    /// The host whose runs are shown (its id); nil for every host's. Kept by the SDK's list (``SessionsListModel/hostFilter``).
    public var hostFilter: String? {
        get { list.hostFilter }
        set { list.hostFilter = newValue }
    }

    /// The host filter's choices: every host, then each host with its run count; empty for a server on its own (no
    /// picker then).
    public var hostOptions: [HostFilterOption] {
        HostFilterOption.options(hosts: list.hosts, clustered: list.isClustered, sessions: list.sessions)
    }

    /// The hosts of the cluster with their state; nil for a server on its own.
    public func hostsSection(now: Date = Date()) -> HostsSection? {
        HostsSection(hosts: list.hosts, clustered: list.isClustered, sessions: list.sessions, now: now)
    }

    /// The rows to show at `now`: newest first, through the filter, hidden ones only with ``showHidden``.
    public func rows(now: Date = Date(), timeZone: TimeZone = .current) -> [SessionRow] {
        visibleSessions.filter(filter.includes).map { SessionRow($0, isHidden: hiddenIDs.contains($0.id), now: now, timeZone: timeZone) }
    }

    /// The filter chips, each counting what the list would show with it (`Live (2)`), in order.
    public var filterOptions: [SessionsFilterOption] { SessionsFilterOption.options(for: visibleSessions) }

    /// `3 runs · 1 live · 2 hidden`, `… · 1 unreachable` in a cluster with a host offline; `No runs yet.` for an empty
    /// server.
    public var summary: String { hasLoaded ? Self.summary(sessions: list.sessions, hiddenIDs: hiddenIDs) : "" }

    /// ``summary`` for a list and the ids hidden.
    public nonisolated static func summary(sessions: [Session], hiddenIDs: Set<String>) -> String {
        if sessions.isEmpty { return "No runs yet." }
        let hidden = sessions.filter { hiddenIDs.contains($0.id) }.count
        let unreachable = sessions.filter(\.isUnreachable).count
        var text = Formatting.count(sessions.count, "run") + " · \(sessions.filter(\.isActive).count) live"
        if unreachable > 0 { text += " · \(unreachable) unreachable" }
        if hidden > 0 { text += " · \(hidden) hidden" }
        return text
    }

    /// The global stream's state, and whether the list is polled meanwhile.
    public var connectionLine: ConnectionLine {
        .list(state: list.connection, isPolling: list.isPolling, pollInterval: list.pollInterval)
    }

    /// What the screen shows instead of rows, if anything. `canStartRuns` adds the "start one here" hint and button.
    public func emptyState(canStartRuns: Bool) -> SessionsEmptyState? {
        if !hasLoaded {
            guard let error = list.lastError else { return nil }
            return SessionsEmptyState(kind: .loadFailed, title: "Could not load the runs", message: error, action: .retry)
        }
        if list.sessions.isEmpty {
            let how = "A run appears here as soon as ralph starts in a workspace this server serves: run `ralph run -p \"…\"` there"
            return SessionsEmptyState(
                kind: .noRuns, title: "No ralph runs yet", message: how + (canStartRuns ? ", or start one here." : "."),
                action: canStartRuns ? .startRun : nil)
        }
        if list.filteredSessions.isEmpty {
            let name = list.filteredHost?.name ?? hostFilter ?? ""
            return SessionsEmptyState(kind: .filteredOut, title: "No runs on host \(name).", message: "", action: .showAllHosts)
        }
        let visible = visibleSessions
        if visible.isEmpty {
            return SessionsEmptyState(
                kind: .allHidden, title: "Every run is hidden", message: "\(Formatting.count(hiddenCount, "run")) hidden on this device.",
                action: .showHidden)
        }
        if !visible.contains(where: filter.includes) { return .filteredOut(filter) }
        return nil
    }

    /// Carries out an empty state's action that stays on this screen (``SessionsEmptyState/Action/startRun`` is navigation).
    public func perform(_ action: SessionsEmptyState.Action) async {
        switch action {
        case .retry: await refresh()
        case .showHidden: showHidden = true
        case .showAll: filter = .all
        case .showAllHosts: hostFilter = nil
        case .startRun: break
        }
    }
}

/// What a list screen shows when it has no rows.
public struct SessionsEmptyState: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case loadFailed, noRuns, allHidden, filteredOut }
    public enum Action: Sendable, Equatable {
        case retry, startRun, showHidden, showAll, showAllHosts

        public var label: String {
            switch self {
            case .retry: "Try again"
            case .startRun: "Start a run"
            case .showHidden: "Show hidden runs"
            case .showAll: "Show all runs"
            case .showAllHosts: "Show every host’s runs"
            }
        }
    }

    public var kind: Kind
    public var title: String
    public var message: String
    public var action: Action?

    public init(kind: Kind, title: String, message: String, action: Action?) {
        self.kind = kind
        self.title = title
        self.message = message
        self.action = action
    }

    /// A filter that lets no run through.
    public static func filteredOut(_ filter: SessionsFilter) -> SessionsEmptyState {
        SessionsEmptyState(
            kind: .filteredOut, title: filter == .live ? "No run is live right now." : "No finished runs yet.", message: "", action: .showAll)
    }
}

/// A filter chip: the filter and its label with the count.
public struct SessionsFilterOption: Sendable, Equatable, Identifiable {
    public var filter: SessionsFilter
    /// `Live (2)`.
    public var label: String
    public var id: SessionsFilter { filter }

    /// Every filter with the number of `sessions` it lets through.
    public static func options(for sessions: [Session]) -> [SessionsFilterOption] {
        SessionsFilter.allCases.map { filter in
            SessionsFilterOption(filter: filter, label: "\(filter.label) (\(sessions.filter(filter.includes).count))")
        }
    }
}
