import AgentRunner
import Foundation
import Logging
import NIOPosix
import RalphAPI
import RalphFiles
import SQLStore
import Synchronization

/// Publishes this host's runs into the cluster's database: each run's summary (`cluster_sessions`) and its events,
/// append-only (`cluster_events`), with a notice after each batch.
///
/// The run files stay the truth: the catalog only marks a run dirty, and the publisher reads what the database does
/// not have yet from the file itself. So nothing is held in memory while the database is away, and after any failure
/// (or at start) it simply goes on from the last line the database has.
final class SessionPublisher: RunCatalogObserver, Sendable {
    struct Published: Sendable {
        var line: Int
        var generation: Int
    }

    struct State: Sendable {
        var dirty: Set<String> = []
        var removed: Set<String> = []
        /// What the database holds of each run, as far as this publisher knows (nil: ask it).
        var published: [String: Published] = [:]
        var waiter: CheckedContinuation<Void, Never>?
    }

    let catalog: RunCatalog
    let supervisor: RunSupervisor
    let database: any SQLDatabase
    let hosts: HostRegistry
    let logger: Logger
    private let state = Mutex(State())
    /// Events per insert statement.
    static let batch = 500

    init(catalog: RunCatalog, supervisor: RunSupervisor, database: any SQLDatabase, hosts: HostRegistry, logger: Logger) {
        self.catalog = catalog
        self.supervisor = supervisor
        self.database = database
        self.hosts = hosts
        self.logger = logger
    }

    func catalogDidChange(_ change: RunCatalog.Change) {
        switch change {
        case .added(let snapshot), .appended(let snapshot, _), .updated(let snapshot): mark(snapshot.id)
        case .reset(let snapshot):
            state.withLock { $0.published[snapshot.id] = nil }
            mark(snapshot.id)
        case .removed(let id):
            state.withLock {
                $0.removed.insert(id)
                $0.dirty.remove(id)
            }
            wake()
        }
    }

    /// Marks a run to publish again (its pause or stop changed too).
    func mark(_ id: String) {
        _ = state.withLock { $0.dirty.insert(id) }
        wake()
    }

    /// Everything again, from what the database holds (after the database came back).
    func markAll() {
        let ids = catalog.snapshots().map(\.id)
        state.withLock { state in
            state.published = [:]
            state.dirty.formUnion(ids)
        }
        wake()
    }

    private func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Publishes until cancelled: every run first (live ones first), then what changes.
    func run() async {
        await catalog.waitUntilReady()
        markAll()
        var backoff = Duration.milliseconds(200)
        while !Task.isCancelled {
            let (dirty, removed) = state.withLock { state -> ([String], Set<String>) in
                defer {
                    state.dirty = []
                    state.removed = []
                }
                return (Array(state.dirty), state.removed)
            }
            if dirty.isEmpty && removed.isEmpty {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let now = state.withLock { state -> Bool in
                            guard state.dirty.isEmpty, state.removed.isEmpty, !Task.isCancelled else { return true }
                            state.waiter = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    wake()
                }
                continue
            }
            do {
                for id in removed { try await remove(id) }
                let ordered = dirty.compactMap { catalog.snapshot(id: $0) }.sorted { ($0.isLive ? 0 : 1, $0.id) < ($1.isLive ? 0 : 1, $1.id) }
                for snapshot in ordered where !Task.isCancelled {
                    try await publish(snapshot)
                }
                backoff = .milliseconds(200)
            } catch {
                // Nothing is lost: the runs are dirty again, and the files still hold every line.
                state.withLock { state in
                    state.dirty.formUnion(dirty)
                    state.removed.formUnion(removed)
                    state.published = [:]
                }
                logger.warning("cluster: cannot publish runs (\(error)); retrying in \(backoff)")
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    // MARK: - One run

    private func publish(_ snapshot: RunSnapshot) async throws {
        var published = try await self.published(snapshot)
        let through = snapshot.state.lineCount
        // Every batch but the last in its own transaction; the last one with the summary, in one commit.
        var pending: [RalphEvent] = []
        while published.line < through {
            let events = try await read(snapshot.id, after: published.line, through: through)
            guard let last = events.last?.id else {
                published.line = through
                break
            }
            if !pending.isEmpty { try await store(snapshot.id, events: pending, summary: nil) }
            pending = events
            published.line = last
        }
        try await store(snapshot.id, events: pending, summary: try summary(snapshot, line: published.line))
        state.withLock { $0.published[snapshot.id] = published }
    }

    /// What the database holds of the run; a run whose file was replaced loses its stored events first.
    private func published(_ snapshot: RunSnapshot) async throws -> Published {
        if let known = state.withLock({ $0.published[snapshot.id] }), known.generation == snapshot.generation { return known }
        let id = snapshot.id
        let generation = snapshot.generation
        return try await database.write { db in
            let row = try await db.first("SELECT generation FROM cluster_sessions WHERE id = ?", id)
            if let stored = try row?.int("generation"), stored != generation {
                try await db.execute("DELETE FROM cluster_events WHERE session_id = ?", id)
                return Published(line: 0, generation: generation)
            }
            let line = try await db.first("SELECT MAX(line) AS last FROM cluster_events WHERE session_id = ?", id)?.optionalInt("last") ?? 0
            return Published(line: line, generation: generation)
        }
    }

    /// Up to ``batch`` events with ids in (after, through], read from the run's file on the thread pool.
    private func read(_ id: String, after: Int, through: Int) async throws -> [RalphEvent] {
        guard var position = catalog.replayStart(id: id, afterLine: after) else { return [] }
        var events: [RalphEvent] = []
        while events.count < Self.batch {
            let from = position
            let batch = try await NIOThreadPool.singleton.runIfActive { try EventFileReader.read(from: from, after: after, through: through) }
            events += batch.events
            if batch.done { break }
            position = batch.next
        }
        return events
    }

    /// A run's summary row (`cluster_sessions`).
    struct Summary: Sendable {
        var arguments: [any SQLBindable]
        var notice: ClusterNotice
    }

    /// Stores events and (with the last batch) the run's summary in one transaction, each with its notice.
    ///
    /// Without waiting for the commit to reach the disk (`synchronous_commit = off`): the run's file is the truth, and a
    /// database that crashes loses at most the last moment's copies, which the publisher copies again — after any
    /// failure it starts over from the last line the database holds.
    private func store(_ id: String, events: [RalphEvent], summary: Summary?) async throws {
        var rows: [any SQLBindable] = []
        var values: [String] = []
        for event in events {
            let (eventID, data) = SSEFrame.workflowParts(event)
            rows += [id, event.id, eventID, data]
            values.append("(?, ?, ?, ?)")
        }
        let insert =
            "INSERT INTO cluster_events (session_id, line, event_id, data) VALUES \(values.joined(separator: ", ")) ON CONFLICT (session_id, line) DO NOTHING"
        let eventsNotice = events.last.map { ClusterNotice.events(session: id, line: $0.id).payload }
        try await database.write { [rows] db in
            try await db.execute("SET LOCAL synchronous_commit = off")
            if let eventsNotice {
                try await db.execute(insert, arguments: rows)
                try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, eventsNotice)
            }
            if let summary {
                try await db.execute(
                    """
                    INSERT INTO cluster_sessions (id, host_id, summary, end_frame, question, line_count, generation, start_time, removed, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, EXTRACT(EPOCH FROM clock_timestamp())::double precision)
                    ON CONFLICT (id) DO UPDATE SET host_id = excluded.host_id, summary = excluded.summary, end_frame = excluded.end_frame,
                        question = excluded.question,
                        line_count = excluded.line_count, generation = excluded.generation, start_time = excluded.start_time, removed = 0,
                        updated_at = excluded.updated_at
                    """, arguments: summary.arguments)
                try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, summary.notice.payload)
            }
        }
    }

    /// The run as the session list shows it, and the `end` of a finished run.
    private func summary(_ snapshot: RunSnapshot, line: Int) throws -> Summary {
        var session = snapshot.session(paused: supervisor.isPaused(snapshot.id), stop: supervisor.stopRecord(for: snapshot.id))
        session.host = hosts.name
        session.hostId = hosts.id
        let summary = String(decoding: try WireJSON.encode(session), as: UTF8.self)
        let end: String? =
            snapshot.isLive
            ? nil
            : String(
                decoding: try WireJSON.encode(
                    StreamEnd(mode: snapshot.mode, status: snapshot.status, reason: snapshot.stopReason?.reason, lastEventId: line, ts: Timestamp.now())),
                as: UTF8.self)
        let question = try snapshot.pendingQuestion().map { String(decoding: try WireJSON.encode($0), as: UTF8.self) }
        let start = (snapshot.startDate ?? .distantPast).timeIntervalSince1970
        return Summary(
            arguments: [snapshot.id, hosts.id, summary, end, question, line, snapshot.generation, start],
            notice: .session(host: hosts.id, id: snapshot.id))
    }

    private func remove(_ id: String) async throws {
        let host = hosts.id
        try await database.write { db in
            try await db.execute("UPDATE cluster_sessions SET removed = 1 WHERE id = ? AND host_id = ?", id, host)
            try await db.execute("DELETE FROM cluster_events WHERE session_id = ?", id)
            try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, ClusterNotice.session(host: host, id: id).payload)
        }
        state.withLock { $0.published[id] = nil }
    }
}
