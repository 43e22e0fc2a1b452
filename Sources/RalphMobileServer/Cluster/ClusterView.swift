import Foundation
import Logging
import RalphAPI
import RalphFiles
import SQLStore
import Synchronization

/// The other hosts' runs, as their hosts published them (``SessionPublisher``): kept in memory from `cluster_sessions`,
/// updated on each notice, read again in full after the listener reconnects (a missed notice changes nothing then).
///
/// A run of an offline host is listed as `unreachable` — never dropped, never shown as live.
final class ClusterView: Sendable {
    struct Remote: Sendable, Hashable {
        var hostID: String
        var session: Session
        /// The `end` frame's data of a finished run.
        var end: String?
        /// The RObot question it waits on.
        var question: PendingQuestion?
        var lineCount: Int
        var generation: Int
        var startTime: Double
    }

    let database: any SQLDatabase
    let hosts: HostRegistry
    private let remotes = Mutex<[String: Remote]>([:])
    /// Told each run that changed (to announce it on the global stream and to wake its streams).
    private let observers = Mutex<[@Sendable (String) -> Void]>([])

    init(database: any SQLDatabase, hosts: HostRegistry) {
        self.database = database
        self.hosts = hosts
    }

    func observe(_ observer: @escaping @Sendable (String) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    private func changed(_ ids: [String]) {
        let all = observers.withLock { $0 }
        for id in ids { for observer in all { observer(id) } }
    }

    // MARK: - Loading

    /// Every other host's runs, read again.
    func reload() async throws {
        let rows = try await database.query("SELECT * FROM cluster_sessions WHERE host_id <> ? AND removed = 0", [hosts.id])
        var fresh: [String: Remote] = [:]
        for row in rows {
            if let remote = try Self.remote(row) { fresh[remote.session.id] = remote }
        }
        let changed = remotes.withLock { remotes -> [String] in
            let ids = Set(remotes.keys).union(fresh.keys)
            defer { remotes = fresh }
            return ids.filter { remotes[$0] != fresh[$0] }.sorted()
        }
        self.changed(changed)
    }

    /// One run, read again after its notice.
    func reload(id: String) async throws {
        let row = try await database.first("SELECT * FROM cluster_sessions WHERE id = ? AND host_id <> ?", [id, hosts.id])
        let remote = try row.flatMap { try $0.bool("removed") ? nil : try Self.remote($0) }
        let changed = remotes.withLock { remotes -> Bool in
            defer { remotes[id] = remote }
            return remotes[id] != remote
        }
        if changed { self.changed([id]) }
    }

    private static func remote(_ row: SQLRow) throws -> Remote? {
        let summary = try row.string("summary")
        guard let session = try? WireJSON.decode(Session.self, from: Data(summary.utf8)) else { return nil }
        return Remote(
            hostID: try row.string("host_id"), session: session, end: try row.optionalString("end_frame"),
            question: try row.optionalString("question").flatMap { try? WireJSON.decode(PendingQuestion.self, from: Data($0.utf8)) },
            lineCount: try row.int("line_count"),
            generation: try row.int("generation"), startTime: try row.double("start_time"))
    }

    // MARK: - Reading

    /// The run `id` of another host.
    func remote(_ id: String) -> Remote? { remotes.withLock { $0[id] } }

    /// Every other host's run.
    func ids() -> [String] { remotes.withLock { $0.keys.sorted() } }

    /// Other hosts' runs whose id starts with `prefix`.
    func matching(prefix: String) -> [String] {
        remotes.withLock { $0.keys.filter { $0.hasPrefix(prefix) }.sorted() }
    }

    /// The RObot questions the other hosts' live runs wait on (an offline host's are not answerable).
    func questions() -> [PendingQuestion] {
        remotes.withLock { Array($0.values) }.compactMap { hosts.isOnline($0.hostID) ? $0.question : nil }
    }

    /// The runs as the list shows them: an offline host's as `unreachable`, a live one's elapsed time counted on.
    func sessions(now: Date = Date()) -> [(start: Double, session: Session)] {
        remotes.withLock { Array($0.values) }.map { remote in (remote.startTime, shown(remote, now: now)) }
    }

    /// A run of another host as it is shown now.
    func shown(_ remote: Remote, now: Date = Date()) -> Session {
        var session = remote.session
        session.host = hosts.host(remote.hostID)?.name ?? session.host
        session.hostId = remote.hostID
        guard hosts.isOnline(remote.hostID) else {
            session.reachable = false
            session.mode = .unreachable
            session.status = .unreachable
            session.pid = nil
            return session
        }
        session.reachable = true
        if session.mode == .live || session.mode == .paused || session.mode == .suspended,
            let started = Timestamp.parse(session.startedAt)
        {
            session.elapsedSecs = max(0, Int(now.timeIntervalSince(started)))
        }
        return session
    }
}
