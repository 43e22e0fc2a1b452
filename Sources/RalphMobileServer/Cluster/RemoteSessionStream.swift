import Foundation
import Hummingbird
import Logging
import NIOCore
import RalphAPI
import SQLStore
import Synchronization

/// The event streams of other hosts' runs, served from the cluster's copy (`cluster_events`): the same frames and ids
/// as their host streams, `Last-Event-ID` / `?after=` / `?history=` as for a local run, and `end` once the run is over
/// and every event was sent.
///
/// However many clients follow a run here, its new events are read from the database once: a notice (or, should one be
/// missed, the heartbeat tick) wakes the run's reader, which reads what follows the last line it published and fans
/// the frames out through a ``Fanout`` — the same replay-then-live path (``LiveStream``) as a local run, with the same
/// bounded queues (a lagging client reads the database and rejoins, never skipped).
///
/// A host that goes offline ends nothing: the stream stays open with heartbeats, and goes on when the host is back.
/// While the database cannot be reached a stream waits with heartbeats and goes on where it was.
final class RemoteSessionStream: Sendable {
    let database: any SQLDatabase
    let view: ClusterView
    let watchdog: StreamWatchdog
    let heartbeatInterval: Double
    let logger: Logger
    /// The followed remote runs; positions are line numbers (event ids).
    let fanout: Fanout<String>
    /// Runs whose reader is running, and whether it was woken again meanwhile (it reads once more).
    private let readers = Mutex<[String: Bool]>([:])
    static let batch = 500

    init(database: any SQLDatabase, view: ClusterView, watchdog: StreamWatchdog, heartbeatInterval: Double, queueBytes: Int, queueFrames: Int, logger: Logger) {
        self.database = database
        self.view = view
        self.watchdog = watchdog
        self.heartbeatInterval = heartbeatInterval
        self.logger = logger
        fanout = Fanout(queueBytes: queueBytes, queueFrames: queueFrames)
    }

    // MARK: - Reading the database once per run

    /// New events of run `id` are stored (through `line`, when the notice said): its reader reads them — if anyone
    /// streams it here, or `always`.
    func wake(_ id: String, through line: Int? = nil, always: Bool = false) {
        guard let head = fanout.head(id), always || fanout.hasSubscribers(id) else { return }
        if let line, line <= head, view.remote(id)?.end == nil { return }
        let start = readers.withLock { readers -> Bool in
            if readers[id] != nil {
                readers[id] = true
                return false
            }
            readers[id] = false
            return true
        }
        if start { Task { await read(id) } }
    }

    /// Every followed run looks (after the listener reconnected).
    func wakeAll() {
        for id in fanout.keys { wake(id) }
    }

    /// The run is gone from the cluster: its streams end (they reconnect and are told it is gone).
    func remove(_ id: String) {
        fanout.remove(id)
    }

    /// Heartbeats for idle streams, and a look at every followed run each tick: a missed notice delays, never loses.
    func run() async {
        let interval = Duration.milliseconds(Int(heartbeatInterval * 1000))
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let now = ContinuousClock.now
            for queue in fanout.queues { queue.heartbeatIfIdle(now: now, interval: interval) }
            wakeAll()
        }
        fanout.closeAll()
    }

    private func read(_ id: String) async {
        while true {
            do {
                try await publishNew(id)
            } catch {
                // The next notice or tick reads again from the same line.
                logger.debug("cluster: cannot read the events of \(id): \(error)")
            }
            let again = readers.withLock { readers -> Bool in
                if readers[id] == true {
                    readers[id] = false
                    return true
                }
                readers[id] = nil
                return false
            }
            if !again { return }
        }
    }

    /// Publishes the stored events after the run's head, then its `end` once the run is over and all of it was sent.
    private func publishNew(_ id: String) async throws {
        while let head = fanout.head(id) {
            let frames = try await frames(id, after: head, through: nil)
            if !frames.isEmpty { fanout.publish(id, frames: frames) }
            if frames.count < Self.batch { break }
        }
        if let head = fanout.head(id), let remote = view.remote(id), let end = remote.end, head >= remote.lineCount {
            fanout.publish(id, frames: [], end: Self.endFrame(end))
        }
    }

    /// Stored events of a run in (after, through], at most a batch, as frames.
    private func frames(_ id: String, after: Int, through: Int?) async throws -> [(position: Int, frame: ByteBuffer)] {
        let rows =
            if let through {
                try await database.query(
                    "SELECT line, event_id, data FROM cluster_events WHERE session_id = ? AND line > ? AND line <= ? ORDER BY line LIMIT ?",
                    [id, after, through, Self.batch])
            } else {
                try await database.query(
                    "SELECT line, event_id, data FROM cluster_events WHERE session_id = ? AND line > ? ORDER BY line LIMIT ?", [id, after, Self.batch])
            }
        return try rows.map { row in
            (try row.int("line"), SSEFrame.event(id: try row.string("event_id"), name: StreamEventName.workflow, data: try row.bytes("data")))
        }
    }

    static func endFrame(_ end: String) -> ByteBuffer {
        SSEFrame.event(id: nil, name: StreamEventName.end, data: Array(end.utf8))
    }

    // MARK: - A client's stream

    func response(_ request: Request, _ context: AppRequestContext, remote: ClusterView.Remote) async throws -> Response {
        let id = remote.session.id
        let cursor = try EventStreamRoutes.cursor(for: request)
        // Clients that understand `end` get it and the close; the original app gets heartbeats after it.
        let closesAfterEnd = request.headers[.lastEventID] != nil || LegacyStreamClients.optsIn(request)
        let logger = context.logger
        let channel = context.channel
        let heartbeat = Duration.milliseconds(Int(heartbeatInterval * 1000))
        let hold = StreamHold()
        let subscribed = SubscriptionSlot()
        // Where the client starts, and its subscription, before it has its answer — as for a local run: every event
        // stored once the client has the answer reaches it. (With the database away, both are settled in the stream.)
        var early: (after: Int, subscription: Fanout<String>.Subscription)?
        if let after = try? await start(id, cursor: cursor) {
            for _ in 0..<20 {
                let attempt: Fanout<String>.Subscription?
                do {
                    attempt = try await subscription(id, after: after)
                } catch {
                    break
                }
                if let attempt {
                    early = (after, attempt)
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        if case .live(let live) = early?.subscription {
            subscribed.live = live
            wake(id)
        }
        let settled = early
        return EventStreamResponse.make(
            request, context, watchdog: watchdog,
            cleanup: { [fanout] in
                if let live = subscribed.live { fanout.unsubscribe(id, subscriberID: live.id) }
            },
            onShutdown: {
                subscribed.live?.queue.close()
                hold.release()
            },
            ended: { error in logger.debug("remote session stream ended: \(error)", metadata: ["id": "\(id)"]) }
        ) { [self] writer, watch in
            try await watch.writing { try await writer.write(SSEFrame.preamble) }
            let replay: LiveStream.Replay = { [self] after, through, writer in
                var position = after
                while position < through {
                    let frames = try await retrying(&writer, watch: watch) { [position] in try await self.frames(id, after: position, through: through) }
                    guard let last = frames.last?.position else { break }
                    var buffer = ByteBuffer()
                    for (_, frame) in frames {
                        var frame = frame
                        buffer.writeBuffer(&frame)
                    }
                    let pending = buffer
                    try await watch.writing { try await writer.write(pending) }
                    position = last
                }
            }
            let after: Int
            let subscription: Fanout<String>.Subscription
            if let settled {
                (after, subscription) = settled
            } else {
                after = try await retrying(&writer, watch: watch) { try await self.start(id, cursor: cursor) }
                subscription = try await subscribe(id, after: after, writer: &writer, watch: watch)
                if case .live(let live) = subscription {
                    subscribed.live = live
                    wake(id)
                }
            }
            switch subscription {
            case .live(let live):
                try await LiveStream.follow(live, key: id, fanout: fanout, after: after, replay: replay, writer: &writer, watch: watch, channel: channel)
            case .finished(let head, _):
                try await replay(after, head, &writer)
                if let end = view.remote(id)?.end {
                    let frame = Self.endFrame(end)
                    try await watch.writing { try await writer.write(frame) }
                }
            case .unknown:
                return
            }
            if !closesAfterEnd { try await hold.heartbeats(every: heartbeat, writer: &writer, watch: watch) }
        }
    }

    /// Subscribes to the run's feed (opening it at the database's last line); nil while the feed is behind `after` —
    /// the client already has lines the database did not hold when the feed last read it (it streamed them from the
    /// host itself, or the feed was idle): its reader is woken, and the caller tries again, so no line is sent twice.
    private func subscription(_ id: String, after: Int) async throws -> Fanout<String>.Subscription? {
        if fanout.head(id) == nil { fanout.open(id, head: try await lastLine(id)) }
        let subscription = fanout.subscribe(id)
        if case .live(let live) = subscription, live.head < after {
            fanout.unsubscribe(id, subscriberID: live.id)
            wake(id, always: true)
            return nil
        }
        return subscription
    }

    /// ``subscription(_:after:)`` until it succeeds, with heartbeats while it waits (for the database, or for the lines
    /// the client already has).
    private func subscribe(_ id: String, after: Int, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch) async throws -> Fanout<String>.Subscription {
        while true {
            if let subscription = try await retrying(&writer, watch: watch, { try await self.subscription(id, after: after) }) { return subscription }
            try await Task.sleep(for: .milliseconds(100))
            try await watch.writing { try await writer.write(SSEFrame.heartbeat) }
        }
    }

    /// The last line the client has: the one it resumes after, or where its history starts.
    private func start(_ id: String, cursor: EventStreamRoutes.Cursor) async throws -> Int {
        switch cursor {
        case .after(let known): return known.line
        case .all: return 0
        case .last(let n):
            let last = try await lastLine(id)
            guard n > 0, last > 0 else { return last }
            // The N-th last event's line, minus one (ids have gaps where lines were not events).
            let rows = try await database.query("SELECT line FROM cluster_events WHERE session_id = ? ORDER BY line DESC LIMIT ?", [id, n])
            return max(0, (try rows.last?.int("line") ?? 1) - 1)
        }
    }

    private func lastLine(_ id: String) async throws -> Int {
        try await database.first("SELECT MAX(line) AS last FROM cluster_events WHERE session_id = ?", [id])?.optionalInt("last") ?? 0
    }

    /// Runs a database read until it succeeds, a heartbeat and a second's wait between tries (the database is away).
    private func retrying<T: Sendable>(
        _ writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch, _ body: @Sendable () async throws -> T
    ) async throws -> T {
        while true {
            do {
                return try await body()
            } catch let error as CancellationError {
                throw error
            } catch {
                logger.debug("remote session stream waits for the database: \(error)")
                try await watch.writing { try await writer.write(SSEFrame.heartbeat) }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}

/// The subscription of one stream, for its cleanup and shutdown hooks.
private final class SubscriptionSlot: Sendable {
    private let slot = Mutex<Fanout<String>.Live?>(nil)

    var live: Fanout<String>.Live? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}
