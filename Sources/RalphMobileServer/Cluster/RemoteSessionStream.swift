import Foundation
import Hummingbird
import Logging
import NIOCore
import RalphAPI
import SQLStore
import Synchronization

/// The event stream of another host's run, served from the cluster's copy (`cluster_events`): the same frames and ids
/// as its host streams, `Last-Event-ID` / `?after=` / `?history=` as for a local run, live as the host publishes (a
/// notice wakes the stream; without one it looks again every heartbeat, so a missed notice delays, never loses), and
/// `end` once the run is over and every event was sent.
///
/// A host that goes offline ends nothing: the stream stays open with heartbeats, and goes on when the host is back.
final class RemoteSessionStream: Sendable {
    let database: any SQLDatabase
    let view: ClusterView
    let watchdog: StreamWatchdog
    let heartbeatInterval: Double
    /// Wakers of the streams following each run.
    private let followers = Mutex<[String: [UUID: @Sendable () -> Void]]>([:])
    static let batch = 500

    init(database: any SQLDatabase, view: ClusterView, watchdog: StreamWatchdog, heartbeatInterval: Double) {
        self.database = database
        self.view = view
        self.watchdog = watchdog
        self.heartbeatInterval = heartbeatInterval
    }

    /// New events (or a new summary) of run `id`: its streams look.
    func wake(_ id: String) {
        let wakers = followers.withLock { $0[id].map { Array($0.values) } ?? [] }
        for wake in wakers { wake() }
    }

    /// Every stream looks (after the listener reconnected).
    func wakeAll() {
        let wakers = followers.withLock { $0.values.flatMap(\.values) }
        for wake in wakers { wake() }
    }

    func response(_ request: Request, _ context: AppRequestContext, remote: ClusterView.Remote) throws -> Response {
        let id = remote.session.id
        let cursor = try EventStreamRoutes.cursor(for: request)
        // Clients that understand `end` get it and the close; the original app gets heartbeats after it.
        let closesAfterEnd = request.headers[.lastEventID] != nil || LegacyStreamClients.optsIn(request)
        let logger = context.logger
        let signal = StreamSignal()
        let token = UUID()
        followers.withLock { $0[id, default: [:]][token] = { signal.fire() } }
        return EventStreamResponse.make(
            request, context, watchdog: watchdog,
            cleanup: { [self] in _ = followers.withLock { $0[id]?.removeValue(forKey: token) } },
            onShutdown: { signal.close() },
            ended: { error in logger.debug("remote session stream ended: \(error)", metadata: ["id": "\(id)"]) }
        ) { [self] writer, watch in
            try await watch.writing { try await writer.write(SSEFrame.preamble) }
            let heartbeat = Duration.milliseconds(Int(heartbeatInterval * 1000))
            // While the database cannot be reached the stream waits (with heartbeats) and goes on where it was.
            var start: Int?
            while start == nil, !signal.isClosed {
                start = try? await self.start(id, cursor: cursor)
                if start == nil { try await pause(&writer, watch: watch, logger: logger, id: id) }
            }
            var sent = start ?? 0
            var ended = false
            while !signal.isClosed {
                guard let next = try await send(id, after: sent, writer: &writer, watch: watch) else {
                    try await pause(&writer, watch: watch, logger: logger, id: id)
                    continue
                }
                sent = next
                if !ended, let current = view.remote(id), let end = current.end, sent >= current.lineCount {
                    let frame = SSEFrame.event(id: nil, name: StreamEventName.end, data: Array(end.utf8))
                    try await watch.writing { try await writer.write(frame) }
                    ended = true
                    if closesAfterEnd { return }
                }
                if await !signal.wait(timeout: heartbeat) {
                    try await watch.writing { try await writer.write(SSEFrame.heartbeat) }
                }
            }
        }
    }

    /// The last line the client has: the one it resumes after, or where its history starts.
    private func start(_ id: String, cursor: EventStreamRoutes.Cursor) async throws -> Int {
        switch cursor {
        case .after(let known): return known.line
        case .all: return 0
        case .last(let n):
            let last = try await database.first("SELECT MAX(line) AS last FROM cluster_events WHERE session_id = ?", [id])?.optionalInt("last") ?? 0
            guard n > 0, last > 0 else { return last }
            // The N-th last event's line, minus one (ids have gaps where lines were not events).
            let rows = try await database.query("SELECT line FROM cluster_events WHERE session_id = ? ORDER BY line DESC LIMIT ?", [id, n])
            return max(0, (try rows.last?.int("line") ?? 1) - 1)
        }
    }

    /// A second's wait with a heartbeat, while the database cannot be reached.
    private func pause(_ writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch, logger: Logger, id: String) async throws {
        logger.debug("remote session stream waits for the database", metadata: ["id": "\(id)"])
        try await watch.writing { try await writer.write(SSEFrame.heartbeat) }
        try await Task.sleep(for: .seconds(1))
    }

    /// Writes every stored event after `after`; the last line sent, or nil when the database could not be read (what
    /// was sent before stays sent: the caller goes on from the line it had).
    private func send(_ id: String, after: Int, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch) async throws -> Int? {
        var last = after
        while true {
            guard
                let rows = try? await database.query(
                    "SELECT line, event_id, data FROM cluster_events WHERE session_id = ? AND line > ? ORDER BY line LIMIT ?", [id, last, Self.batch])
            else { return last == after ? nil : last }
            guard !rows.isEmpty else { return last }
            var buffer = ByteBuffer()
            for row in rows {
                var frame = SSEFrame.event(id: try row.string("event_id"), name: StreamEventName.workflow, data: try row.bytes("data"))
                buffer.writeBuffer(&frame)
                last = try row.int("line")
            }
            let pending = buffer
            try await watch.writing { try await writer.write(pending) }
            if rows.count < Self.batch { return last }
        }
    }
}

/// Wakes a stream waiting for news, at most once per wait; closed for good on shutdown.
final class StreamSignal: Sendable {
    private struct State {
        var fired = false
        var closed = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    var isClosed: Bool { state.withLock { $0.closed } }

    func fire() {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let waiter = s.waiter else {
                s.fired = true
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
    }

    func close() {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: true)
    }

    /// True when woken (or closed), false when `timeout` passed first.
    func wait(timeout: Duration) async -> Bool {
        let fired = state.withLock { s -> Bool in
            defer { s.fired = false }
            return s.fired || s.closed
        }
        if fired { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let now = self.state.withLock { s -> Bool in
                        if s.fired || s.closed {
                            s.fired = false
                            return true
                        }
                        s.waiter = continuation
                        return false
                    }
                    if now { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            if !first {
                // Timed out: the waiter still waits; take it back and let it go.
                let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
                    defer { s.waiter = nil }
                    return s.waiter
                }
                waiter?.resume(returning: false)
            }
            group.cancelAll()
            return first
        }
    }
}
