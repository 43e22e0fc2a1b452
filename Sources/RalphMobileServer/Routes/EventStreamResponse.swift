import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// What every event stream route (a session's, a conversation's, the global one) does around its own writing, written
/// once: the connection is watched by the ``StreamWatchdog`` while the body is written, the stream ends when the
/// client closes its side, and on graceful shutdown the stream is told to stop (`onShutdown`) and its connection is
/// closed if a write still waits on a client that reads nothing.
enum EventStreamResponse {
    /// The `200` response of an event stream whose body `write` writes.
    ///
    /// - Parameters:
    ///   - cleanup: runs when the body ends, however it ends (unsubscribing from the hub).
    ///   - onShutdown: stops the stream on graceful shutdown (closes its subscriber queue).
    ///   - ended: told why the body ended with an error (a client that went away, a file that could not be read).
    ///   - write: writes the stream, each write through the watch it is given.
    static func make(
        _ request: Request, _ context: AppRequestContext, watchdog: StreamWatchdog,
        cleanup: @escaping @Sendable () -> Void,
        onShutdown: @escaping @Sendable () -> Void,
        ended: @escaping @Sendable (any Error) -> Void,
        write: @escaping @Sendable (inout any ResponseBodyWriter, StreamWatchdog.Watch) async throws -> Void
    ) -> Response {
        let channel = context.channel
        let logger = context.logger
        return Response(
            status: .ok, headers: EventStreamRoutes.headers,
            body: ResponseBody { writer in
                let (watchID, watch) = watchdog.register { channel.close(promise: nil) }
                defer {
                    cleanup()
                    watchdog.unregister(watchID)
                }
                // The stream ends when the client goes away (the request side closes): its task is cancelled then.
                // The stream is written in this task, with one child task reading the request side — not in a task
                // group of its own as `consumeWithCancellationOnInboundClose` does (three tasks more per stream, which
                // an idle stream pays for in memory: 80 KB a stream became 47 KB).
                let canceller = CloseCanceller()
                withUnsafeCurrentTask { canceller.arm($0) }
                do {
                    defer { canceller.disarm() }
                    try await request.body.consumeWithInboundCloseHandler { _ in
                        // Disarmed as soon as the stream is written: once this returns, the child reading the request
                        // side is cancelled and reports that as a close — which must not cancel the `finish` below (a
                        // body without its last chunk, which clients take for a broken connection).
                        defer { canceller.disarm() }
                        try await withGracefulShutdownHandler {
                            try await write(&writer, watch)
                        } onGracefulShutdown: {
                            onShutdown()
                            watch.closeIfStuck()
                        }
                    } onInboundClosed: {
                        canceller.fire()
                    }
                } catch {
                    ended(error)
                }
                do {
                    try await writer.finish(nil)
                } catch {
                    // The client is usually gone already; nothing is left to tell it.
                    logger.trace("event stream could not be finished: \(error)")
                }
            }
        )
    }
}

/// Cancels a stream's task when its client goes away, as long as the task is still writing (never after: the task it
/// names may be gone).
final class CloseCanceller: @unchecked Sendable {
    private let lock = NSLock()
    private var task: UnsafeCurrentTask?

    func arm(_ task: UnsafeCurrentTask?) {
        lock.withLock { self.task = task }
    }

    func fire() {
        lock.withLock { task?.cancel() }
    }

    /// The task is done writing: a close after this is not its concern.
    func disarm() {
        lock.withLock { task = nil }
    }
}
