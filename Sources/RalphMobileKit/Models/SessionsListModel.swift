import Foundation
import Observation
import RalphAPI

/// The sessions list, kept live through the global stream (`GET /api/events`): sessions appear, change and
/// disappear as they do on the server. While that stream is not connected, the list is polled every
/// ``pollInterval`` instead, so it never goes stale.
@MainActor
@Observable
public final class SessionsListModel {
    public let client: RalphClient
    /// Newest first.
    public private(set) var sessions: [Session] = []
    /// State of the global stream.
    public private(set) var connection: ConnectionState = .disconnected
    /// True while the list is refreshed by polling because the stream is down.
    public var isPolling: Bool { polling.isPolling }
    public private(set) var lastError: String?
    public private(set) var lastUpdated: Date?
    public var pollInterval: Duration = .seconds(5)
    public var policy = ReconnectPolicy()

    @ObservationIgnored private var streamTask: Task<Void, Never>?
    @ObservationIgnored private let polling = PollingFallback()

    public init(client: RalphClient) {
        self.client = client
    }

    /// Runs with a live (`live`) or paused session.
    public var activeCount: Int { sessions.filter { $0.mode == .live || $0.mode == .paused }.count }

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

    public func stop() {
        streamTask?.cancel()
        streamTask = nil
        polling.stop()
        connection = .disconnected
    }

    /// Fetches the whole list now (pull to refresh).
    public func refresh() async {
        do {
            sessions = try await client.sessions()
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
