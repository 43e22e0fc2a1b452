import Hummingbird
import NIOCore
import ServiceLifecycle

extension EventStreamRoutes {
    /// `GET /api/events`: every session's summary as it changes, approvals and conversation changes (``GlobalFeed``).
    func globalEvents(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        await catalog.waitUntilReady()
        let lastEventID = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces)
        let (queue, subscriberID, initial) = hub.subscribeGlobal(lastEventID: lastEventID)
        if let lastEventID, !lastEventID.isEmpty { metrics.streamResumed(route: context.endpointPath ?? "/api/events", depth: initial.count) }
        let hub = self.hub
        let logger = context.logger
        let channel = context.channel
        return EventStreamResponse.make(
            request, context, watchdog: watchdog, cleanup: { hub.unsubscribeGlobal(subscriberID: subscriberID) }, onShutdown: { queue.close() },
            ended: { error in logger.debug("global stream ended: \(error)") }
        ) { writer, watch in
            var buffer = SSEFrame.preamble
            for var frame in initial { buffer.writeBuffer(&frame) }
            let first = buffer
            try await watch.writing { try await writer.write(first) }
            watch.counters?.loggedFrames.increment(by: Int64(initial.count))
            try await LiveStream.forward(queue, writer: &writer, watch: watch, channel: channel) { writer, after in
                // The global log is in memory: what was missed comes in one piece, and the subscriber rejoins in the
                // same step.
                var missed = ByteBuffer()
                let frames = hub.globalCatchUp(subscriberID: subscriberID, after: after)
                for var frame in frames { missed.writeBuffer(&frame) }
                let pending = missed
                try await watch.writing { try await writer.write(pending) }
                watch.counters?.loggedFrames.increment(by: Int64(frames.count))
            }
        }
    }
}
