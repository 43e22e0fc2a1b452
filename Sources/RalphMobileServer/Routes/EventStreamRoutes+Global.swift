import Hummingbird
import NIOCore
import ServiceLifecycle

extension EventStreamRoutes {
    /// `GET /api/events`: every session's summary as it changes, approvals and conversation changes (``GlobalFeed``).
    func globalEvents(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try context.require(.viewer)
        await catalog.waitUntilReady()
        let lastEventID = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces)
        let (queue, subscriberID, initial) = hub.subscribeGlobal(lastEventID: lastEventID)
        let hub = self.hub
        let logger = context.logger
        let eventLoop = context.eventLoop
        let watchdog = self.watchdog
        let channel = context.channel
        return Response(
            status: .ok, headers: Self.headers,
            body: ResponseBody { writer in
                let (watchID, watch) = watchdog.register { channel.close(promise: nil) }
                defer {
                    hub.unsubscribeGlobal(subscriberID: subscriberID)
                    watchdog.unregister(watchID)
                }
                do {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await withGracefulShutdownHandler {
                            var buffer = SSEFrame.preamble
                            for var frame in initial { buffer.writeBuffer(&frame) }
                            let first = buffer
                            try await watch.writing { try await writer.write(first) }
                            try await LiveStream.forward(queue, writer: &writer, watch: watch, eventLoop: eventLoop) { writer, after in
                                // The global log is in memory: what was missed comes in one piece, and the
                                // subscriber rejoins in the same step.
                                var missed = ByteBuffer()
                                for var frame in hub.globalCatchUp(subscriberID: subscriberID, after: after) { missed.writeBuffer(&frame) }
                                let pending = missed
                                try await watch.writing { try await writer.write(pending) }
                            }
                        } onGracefulShutdown: {
                            queue.close()
                            watch.closeIfStuck()
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
