import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import ServiceLifecycle

/// The SSE routes: `GET /api/sessions/{id}/events` and `GET /api/events`.
struct EventStreamRoutes {
    let catalog: RunCatalog
    let hub: EventHub
    let lookup: SessionLookup
    let watchdog: StreamWatchdog
    /// The original iOS app's streams (no loop after `end`, no second replay on a reconnect).
    let legacy: LegacyStreamClients
    /// Seconds between heartbeats on a legacy stream held open after `end`.
    let heartbeatInterval: Double
    /// Where resumes are counted.
    let metrics: ServerMetrics
    /// How long a stream request for a run that is still starting waits for it.
    static let pendingWait = 30.0

    static let defaultHistory = 200

    func register(on routes: Routes) {
        routes.viewer.get("/api/sessions/{id}/events") { request, context in try await sessionEvents(request, context) }
        routes.viewer.get("/api/events") { request, context in try await globalEvents(request, context) }
    }

    /// The server closes the connection when a stream ends, so clients must not put it back in a keep-alive pool.
    static var headers: HTTPFields {
        [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache", .xAccelBuffering: "no", .connection: "close"]
    }

    /// Where a client wants its replay to start.
    enum Cursor: Equatable {
        /// Every event after this id (`Last-Event-ID` or `?after=`): a line or sequence number, with the check of a
        /// session stream's id when the client sent one.
        case after(SessionEventID)
        /// The last N events (`?history=N`, default 200).
        case last(Int)
        /// Everything (`?history=all`).
        case all
    }

    /// Where a stream starts: `Last-Event-ID`, else `?after=`, else `?history=` (default the last 200). Every one given is
    /// checked, also one that another makes unused, so a bad value is always refused rather than sometimes ignored.
    static func cursor(for request: Request) throws(APIError) -> Cursor {
        let query = request.uri.queryParameters
        var history = Cursor.last(defaultHistory)
        if let text = query["history"] {
            if text == "all" {
                history = .all
            } else {
                guard let n = Int(text), n >= 0 else { throw .invalidParameter("history must be a non-negative integer or 'all', got '\(text.prefix(40))'") }
                history = .last(n)
            }
        }
        var after: SessionEventID?
        if let text = query["after"] {
            guard let id = SessionEventID(String(text)) else {
                throw .invalidParameter("after must be an event id (a non-negative integer, or <line>:<check>), got '\(text.prefix(40))'")
            }
            after = id
        }
        if let header = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces), !header.isEmpty {
            guard let id = SessionEventID(header) else {
                throw .invalidParameter("Last-Event-ID must be an event id (a non-negative integer, or <line>:<check>), got '\(header.prefix(40))'")
            }
            return .after(id)
        }
        return after.map { .after($0) } ?? history
    }

    // MARK: - Session stream

    func sessionEvents(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id: String
        switch try await lookup.target(context.parameters.get("id") ?? "") {
        case .run(let snapshot):
            id = snapshot.id
        case .pending(let started):
            // Started here a moment ago: wait for ralph's events file rather than answering 404.
            guard let snapshot = await lookup.waitForRun(started, seconds: Self.pendingWait) else {
                if lookup.supervisor.isRunning(started) {
                    throw APIError.conflict("session \(started.pendingID) is still starting; retry shortly")
                }
                let end = StreamEnd(mode: .complete, status: .failed, reason: "exited before starting a run", lastEventId: 0, ts: Timestamp.now())
                var body = SSEFrame.preamble
                var frame = SSEFrame.event(id: nil, name: StreamEventName.end, value: end)
                body.writeBuffer(&frame)
                return Response(status: .ok, headers: Self.headers, body: .init(byteBuffer: body))
            }
            id = snapshot.id
        }
        var cursor = try Self.cursor(for: request)
        // The original app (no Last-Event-ID, no word that it understands `end`): a reconnect resumes where it was.
        let legacyClient = request.headers[.lastEventID] == nil && !LegacyStreamClients.optsIn(request) ? LegacyStreamClients.client(request, context) : nil
        if let legacyClient, let line = legacy.resumeLine(client: legacyClient, session: id) { cursor = .after(SessionEventID(line: line, check: nil)) }
        let wantsState = request.uri.queryParameters["state"].map { $0 == "1" || $0 == "true" } ?? false
        var subscription = hub.subscribe(runID: id, wantsState: wantsState)
        if case .after(let known) = cursor, known.line > subscription.head {
            // The client knows of lines not announced yet: let the catalog read the file now, then look again.
            hub.unsubscribe(subscription, runID: id)
            await catalog.catchUp(id: id)
            subscription = hub.subscribe(runID: id, wantsState: wantsState)
        }
        if case .unknown = subscription { throw APIError.sessionNotFound("session '\(id)' is gone") }
        let lastLine = subscription.head
        var after: Int
        var reset: StreamReset?
        switch cursor {
        case .after(let known):
            after = known.line
            if known.line > lastLine {
                reset = StreamReset(resumedAfter: known.description, reason: "the run file is shorter than the event resumed after: it was replaced or truncated", ts: Timestamp.now())
            } else if let check = known.check, known.line > 0, await Self.check(ofLine: known.line, runID: id, catalog: catalog) != check {
                reset = StreamReset(resumedAfter: known.description, reason: "the run file was replaced or rewritten since that event", ts: Timestamp.now())
            }
            // The history the client knew is gone: it gets the current file from its first line.
            if reset != nil { after = 0 }
            metrics.streamResumed(route: context.endpointPath ?? "/api/sessions/{id}/events", depth: lastLine - after)
        case .last(let n): after = max(0, lastLine - n)
        case .all: after = 0
        }
        let logger = context.logger
        let channel = context.channel
        let catalog = self.catalog
        let hub = self.hub
        let lookup = self.lookup
        let subscribed = subscription
        var preamble = SSEFrame.preamble
        if let reset {
            var frame = SSEFrame.event(id: nil, name: StreamEventName.reset, value: reset)
            preamble.writeBuffer(&frame)
        }
        let first = preamble
        let replayAfter = after
        let legacy = self.legacy
        let heartbeat = Duration.milliseconds(Int(heartbeatInterval * 1000))
        let hold = StreamHold()
        return EventStreamResponse.make(
            request, context, watchdog: watchdog, cleanup: { hub.unsubscribe(subscribed, runID: id) },
            onShutdown: {
                if case .live(let live) = subscribed { live.queue.close() }
                hold.release()
            },
            ended: { error in
                switch error {
                case is CancellationError: logger.debug("session stream closed by the client", metadata: ["id": "\(id)"])
                case let error as EventFileReader.ReadError: logger.notice("session stream closed: \(error)", metadata: ["id": "\(id)"])
                default: logger.debug("session stream ended: \(error)", metadata: ["id": "\(id)"])
                }
            }
        ) { writer, watch in
            // Replay, then live until `end` (or the finished run's `end`), through `writer`.
            let body: @Sendable (inout any ResponseBodyWriter) async throws -> Void = { writer in
                let replay: LiveStream.Replay = { after, through, writer in
                    try await Self.replay(runID: id, after: after, through: through, catalog: catalog, writer: &writer, watch: watch)
                }
                try await watch.writing { try await writer.write(first) }
                if case .live(let live) = subscribed {
                    try await LiveStream.follow(live, key: id, fanout: hub.runs, after: replayAfter, replay: replay, writer: &writer, watch: watch, channel: channel,
                        direct: legacyClient == nil)
                } else {
                    try await replay(replayAfter, lastLine, &writer)
                    try await Self.finish(runID: id, withState: wantsState, lookup: lookup, hub: hub, writer: &writer, watch: watch)
                }
            }
            guard let legacyClient else { return try await body(&writer) }
            var tracked: any ResponseBodyWriter = LegacyTrackingWriter(base: writer) { line in legacy.sent(client: legacyClient, session: id, line: line) }
            try await body(&tracked)
            // The original app reconnects from a closed stream: keep it open, with heartbeats, until it leaves.
            try await hold.heartbeats(every: heartbeat, writer: &tracked, watch: watch)
        }
    }

    /// The end of a finished run's stream after its replay: its last state (when asked for) and the `end` frame.
    @inline(never)
    static func finish(
        runID: String, withState: Bool, lookup: SessionLookup, hub: EventHub, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch
    ) async throws {
        guard let snapshot = lookup.catalog.snapshot(id: runID) else { return }
        var frames = ByteBuffer()
        if withState {
            var state = SSEFrame.event(id: nil, name: StreamEventName.state, value: hub.shown(lookup.withRPC(try await lookup.detailed(snapshot).detail(paused: lookup.supervisor.isPaused(runID), stop: lookup.supervisor.stopRecord(for: runID)))))
            frames.writeBuffer(&state)
        }
        var end = EventHub.endFrame(for: snapshot)
        frames.writeBuffer(&end)
        let pending = frames
        try await watch.writing { try await writer.write(pending) }
        watch.counters?.loggedFrames.increment(by: Int64(withState ? 2 : 1))
    }

    /// The check of line `line` of a run as the file holds it now (nil when that line is not an event any more).
    @inline(never)
    static func check(ofLine line: Int, runID: String, catalog: RunCatalog) async -> UInt32? {
        guard var position = catalog.replayStart(id: runID, afterLine: line - 1) else { return nil }
        // From the checkpoint before it, in batches (a batch stops after about 512 KB).
        while true {
            let from = position
            guard let batch = try? await NIOThreadPool.singleton.runIfActive({ try EventFileReader.read(from: from, after: line - 1, through: line) })
            else { return nil }
            if let event = batch.events.first(where: { $0.id == line }) { return SessionEventID.check(ts: event.ts, topic: event.topic) }
            if batch.done { return nil }
            position = batch.next
        }
    }

    /// Writes the run's events with ids in (after, through], read back from the file in batches.
    @inline(never)
    static func replay(
        runID: String, after: Int, through: Int, catalog: RunCatalog, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch
    ) async throws {
        guard through > after else { return }
        // A run the catalog no longer has cannot be replayed: end the stream rather than skip what it held.
        guard var position = catalog.replayStart(id: runID, afterLine: after) else { throw EventFileReader.ReadError.fileChanged }
        while true {
            let current = position
            let batch = try await NIOThreadPool.singleton.runIfActive {
                try EventFileReader.read(from: current, after: after, through: through)
            }
            if !batch.events.isEmpty {
                var buffer = ByteBuffer()
                for event in batch.events {
                    var frame = SSEFrame.workflow(event)
                    buffer.writeBuffer(&frame)
                }
                try await watch.writing { try await writer.write(buffer) }
                watch.counters?.loggedFrames.increment(by: Int64(batch.events.count))
            }
            if batch.done { return }
            position = batch.next
        }
    }
}
