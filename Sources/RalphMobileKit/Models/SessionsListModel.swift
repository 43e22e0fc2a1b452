import Foundation
import Observation
import RalphAPI

/// The sessions list, kept live through the global stream (`GET /api/events`): sessions appear, change and
/// disappear as they do on the server. While that stream is not connected, the list is polled every
/// ``pollInterval`` instead, so it never goes stale.
///
/// In a cluster (servers sharing one database) every host's runs are listed, each with its host: ``hosts`` says which
/// host is online, kept live from `host.updated`; an offline host's runs are `unreachable`, never live and never counted
/// as active; ``hostFilter`` narrows ``filteredSessions`` to one host.
@MainActor
@Observable
public final class SessionsListModel {
    /// The client it reads and follows through.
    public let client: RalphClient
    /// Newest first, of every host.
    public internal(set) var sessions: [Session] = []
    /// The hosts of the cluster (`GET /api/hosts`), this server first, then by name; this server alone when it is on
    /// its own; empty until read (or for a server that has no hosts route).
    public internal(set) var hosts: [HostInfo] = []
    /// Whether the server is one of a cluster (then each session says its host).
    public internal(set) var isClustered = false
    /// Only the runs of this host (its id, or its name ignoring case) in ``filteredSessions``; nil for every host's.
    public var hostFilter: String?
    /// State of the global stream.
    public private(set) var connection: ConnectionState = .disconnected
    /// True while the list is refreshed by polling because the stream is down.
    public var isPolling: Bool { polling.isPolling }
    /// Why the last refresh failed, or why the stream gave up; cleared by the next refresh that succeeds.
    public private(set) var lastError: String?
    /// When the list last changed: a refresh, or a session or host event.
    public private(set) var lastUpdated: Date?
    /// How long polling waits between two reads while the stream is not connected (5 s); read before each wait.
    public var pollInterval: Duration = .seconds(5)
    /// The reconnect policy of the global stream; takes effect at the next ``start()`` that opens it.
    public var policy = ReconnectPolicy()

    @ObservationIgnored private var streamTask: Task<Void, Never>?
    @ObservationIgnored private let polling = PollingFallback()
    /// The hosts read after the stream (re)connects; ``stop()`` cancels them.
    @ObservationIgnored let tasks = ModelTasks()
    /// Each host's latest `host.updated`, numbered: a read of the hosts that started before one says older things of it.
    @ObservationIgnored var hostUpdates: [String: (host: HostInfo, number: Int)] = [:]
    @ObservationIgnored var hostUpdateCount = 0

    /// A model with an empty list; call ``start()``.
    public init(client: RalphClient) {
        self.client = client
    }

    /// Runs with a live (`live`) or paused session; an unreachable one never counts.
    public var activeCount: Int { sessions.filter { !$0.isUnreachable && ($0.mode == .live || $0.mode == .paused) }.count }

    /// Loads the list and keeps it current until ``stop()``.
    public func start() async {
        await refresh()
        guard streamTask == nil else { return }
        let stream = EventStream(client: client, path: "/api/events", policy: policy)
        streamTask = Task { [weak self] in
            for await update in stream.updates() {
                guard let self else { return }
                self.apply(update)
            }
            // Stopped (``stop()`` cancelled this task): nothing more to do; polling stays off.
            guard !Task.isCancelled else { return }
            self?.streamTask = nil
            self?.connection = .disconnected
            self?.startPolling()
        }
        startPolling()
    }

    /// Closes the stream, stops polling and cancels host reads under way; the list stays as it was.
    public func stop() {
        streamTask?.cancel()
        streamTask = nil
        polling.stop()
        tasks.cancelAll()
        connection = .disconnected
    }

    /// Fetches the whole list and the hosts now (pull to refresh).
    public func refresh() async {
        do {
            let fetched = try await client.sessions()
            await refreshHosts()
            // A run of a host offline now is shown unreachable, however it was listed a moment before.
            let offline = Set(offlineHosts.map(\.id))
            sessions = fetched.map { offline.contains($0.hostId ?? "") && !$0.isUnreachable ? $0.markedUnreachable() : $0 }
            lastUpdated = Date()
            lastError = nil
        } catch {
            lastError = error.description
        }
    }

    private func apply(_ update: EventStream.Update) {
        switch update {
        case .state(let state):
            connection = state
            if state == .connected {
                polling.streamConnected()
                // `host.updated` frames missed while the stream was down are not replayed: read the hosts again.
                tasks.spawn { [weak self] in await self?.refreshHosts() }
            } else if case .error(let message) = state {
                lastError = message
            }
        case .event(let frame):
            let data = Data(frame.data.utf8)
            switch frame.event {
            case StreamEventName.sessionAdded, StreamEventName.sessionUpdated:
                guard let session = try? WireJSON.decode(Session.self, from: data) else { return }
                upsert(session)
            case StreamEventName.sessionRemoved:
                guard let removed = try? WireJSON.decode(SessionRemoved.self, from: data) else { return }
                sessions.removeAll { $0.id == removed.id }
            case StreamEventName.hostUpdated:
                guard let host = try? WireJSON.decode(HostInfo.self, from: data) else { return }
                apply(host)
            default:
                return
            }
            lastUpdated = Date()
        case .end:
            break
        }
    }

    func upsert(_ session: Session) {
        if let index = sessions.firstIndex(where: { $0.id == session.id }) {
            sessions[index] = session
        } else {
            sessions.append(session)
        }
        sessions.sort { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }
    }

    /// Polls while the stream is not connected.
    private func startPolling() {
        polling.start(
            interval: { [weak self] in self?.pollInterval }, isConnected: { [weak self] in self.map { $0.connection == .connected } },
            refresh: { [weak self] in await self?.refresh() }
        )
    }
}
