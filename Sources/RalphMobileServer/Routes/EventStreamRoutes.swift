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
    /// How long a stream request for a run that is still starting waits for it.
    static let pendingWait = 30.0

    static let defaultHistory = 200

    func register(on router: Router<AppRequestContext>) {
        router.get("/api/sessions/{id}/events") { request, context in try await sessionEvents(request, context) }
        router.get("/api/events") { request, context in try await globalEvents(request, context) }
    }

    /// The server closes the connection when a stream ends, so clients must not put it back in a keep-alive pool.
    static var headers: HTTPFields {
        [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache", .xAccelBuffering: "no", .connection: "close"]
    }

    /// Where a client wants its replay to start.
    enum Cursor: Equatable {
        /// Every event after this id (`Last-Event-ID` or `?after=`).
        case after(Int)
        /// The last N events (`?history=N`, default 200).
        case last(Int)
        /// Everything (`?history=all`).
        case all
    }

    static func cursor(for request: Request) throws(APIError) -> Cursor {
        if let header = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces), !header.isEmpty {
            guard let id = Int(header), id >= 0 else { throw .invalidParameter("Last-Event-ID must be a non-negative integer, got '\(header.prefix(40))'") }
            return .after(id)
        }
        let query = request.uri.queryParameters
        if let after = query["after"] {
            guard let id = Int(after), id >= 0 else { throw .invalidParameter("after must be a non-negative integer, got '\(after.prefix(40))'") }
            return .after(id)
        }
        if let history = query["history"] {
            if history == "all" { return .all }
            guard let n = Int(history), n >= 0 else { throw .invalidParameter("history must be a non-negative integer or 'all', got '\(history.prefix(40))'") }
            return .last(n)
        }
        return .last(defaultHistory)
    }

    // MARK: - Session stream

    func sessionEvents(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try context.require(.viewer)
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
        let cursor = try Self.cursor(for: request)
        var subscription = hub.subscribe(runID: id)
        if case .after(let a) = cursor, a > subscription.lastLine {
            // The client knows of lines not announced yet: let the catalog read the file now, then look again.
            hub.unsubscribe(subscription, runID: id)
            await catalog.catchUp(id: id)
            subscription = hub.subscribe(runID: id)
        }
        if case .unknown = subscription { throw APIError.sessionNotFound("session '\(id)' is gone") }
        let lastLine = subscription.lastLine
        let after: Int
        switch cursor {
        case .after(let a):
            // Still past the end: the file was replaced or truncated since. Replay the current one from the start.
            after = a > lastLine ? 0 : a
        case .last(let n): after = max(0, lastLine - n)
        case .all: after = 0
        }
        let logger = context.logger
        let eventLoop = context.eventLoop
        let catalog = self.catalog
        let hub = self.hub
        let queue: SubscriberQueue?
        if case .live(let q, _, _, _) = subscription { queue = q } else { queue = nil }
        let subscribed = subscription
        return Response(
            status: .ok, headers: Self.headers,
            body: ResponseBody { writer in
                defer { hub.unsubscribe(subscribed, runID: id) }
                do {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await withGracefulShutdownHandler {
                            try await writer.write(SSEFrame.preamble)
                            try await Self.replay(runID: id, after: after, through: lastLine, catalog: catalog, writer: &writer)
                            if let queue {
                                try await Self.forward(queue, writer: &writer, eventLoop: eventLoop)
                            } else if let snapshot = catalog.snapshot(id: id) {
                                try await writer.write(EventHub.endFrame(for: snapshot))
                            }
                        } onGracefulShutdown: {
                            queue?.close()
                        }
                    }
                } catch is CancellationError {
                    logger.debug("session stream closed by the client", metadata: ["id": "\(id)"])
                } catch let error as EventFileReader.ReadError {
                    logger.notice("session stream closed: \(error)", metadata: ["id": "\(id)"])
                } catch {
                    logger.debug("session stream ended: \(error)", metadata: ["id": "\(id)"])
                }
                try? await writer.finish(nil)
            }
        )
    }

    /// Writes the run's events with ids in (after, through], read back from the file in batches.
    static func replay(runID: String, after: Int, through: Int, catalog: RunCatalog, writer: inout any ResponseBodyWriter) async throws {
        guard through > after, var position = catalog.replayStart(id: runID, afterLine: after) else { return }
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
                try await writer.write(buffer)
            }
            if batch.done { return }
            position = batch.next
        }
    }

    /// Writes queued frames until the queue ends. What queued up while the last write was in flight goes out in one
    /// write (one syscall for a burst, not one per frame); frames are never dropped or reordered.
    /// It runs on the connection's event loop (`eventLoop`), so a wake-up and its write are one hop, not two.
    static func forward(_ queue: SubscriberQueue, writer: inout any ResponseBodyWriter, eventLoop: any EventLoop) async throws {
        try await EventLoopExecutor.run(on: eventLoop) { try await forward(queue, writer: &writer) }
    }

    private static func forward(_ queue: SubscriberQueue, writer: inout any ResponseBodyWriter) async throws {
        while true {
            let batch = await queue.nextBatch()
            if batch.isEmpty { return }
            if batch.count == 1, case .frame(let frame) = batch[0] {
                try await writer.write(frame)
                continue
            }
            var buffer = ByteBuffer()
            var ended = false
            for item in batch {
                switch item {
                case .frame(var frame): buffer.writeBuffer(&frame)
                case .heartbeat: buffer.writeImmutableBuffer(SSEFrame.heartbeat)
                case .end(var frame):
                    buffer.writeBuffer(&frame)
                    ended = true
                }
                if ended { break }
            }
            try await writer.write(buffer)
            if ended { return }
        }
    }

    // MARK: - Global stream

    func globalEvents(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try context.require(.viewer)
        await catalog.waitUntilReady()
        let lastEventID = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces)
        let (queue, subscriberID, initial) = hub.subscribeGlobal(lastEventID: lastEventID)
        let hub = self.hub
        let logger = context.logger
        let eventLoop = context.eventLoop
        return Response(
            status: .ok, headers: Self.headers,
            body: ResponseBody { writer in
                defer { hub.unsubscribeGlobal(subscriberID: subscriberID) }
                do {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await withGracefulShutdownHandler {
                            var buffer = SSEFrame.preamble
                            for var frame in initial { buffer.writeBuffer(&frame) }
                            try await writer.write(buffer)
                            try await Self.forward(queue, writer: &writer, eventLoop: eventLoop)
                        } onGracefulShutdown: {
                            queue.close()
                        }
                    }
                } catch {
                    logger.debug("global stream ended: \(error)")
                }
                try? await writer.finish(nil)
            }
        )
    }
}
