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
                // The stream ends when the client goes away: its task is cancelled when the connection's first handler
                // sees the client close its side (or the connection close). No task reads the request side meanwhile —
                // Hummingbird's `consumeWithInboundCloseHandler` runs one per stream, whose memory an idle stream
                // would pay for (its frames and the task-local copy of its parent: about 4 KB).
                let canceller = CloseCanceller()
                withUnsafeCurrentTask { canceller.arm($0) }
                let observer = InputCloseObserver(channel: channel) { canceller.fire() }
                do {
                    defer {
                        canceller.disarm()
                        observer.stop()
                    }
                    try await withGracefulShutdownHandler {
                        try await write(&writer, watch)
                    } onGracefulShutdown: {
                        onShutdown()
                        watch.closeIfStuck()
                    }
                } catch {
                    ended(error)
                }
                do {
                    // Watched too: the last chunk waits for room like any write, and a stream whose frames the loop
                    // wrote may find its client reading nothing only now.
                    try await watch.writing { try await writer.finish(nil) }
                } catch {
                    // The client is usually gone already; nothing is left to tell it.
                    logger.trace("event stream could not be finished: \(error)")
                }
            }
        )
    }
}

/// Tells the connection's ``ConnectionDeadlineHandler`` to call `closed` when the client closes its side. A connection
/// without one (a test's in-process router) is not watched: its stream ends when a write fails or the stream ends.
struct InputCloseObserver: Sendable {
    private let channel: any Channel

    init(channel: any Channel, closed: @escaping @Sendable () -> Void) {
        self.channel = channel
        channel.eventLoop.execute {
            (try? channel.pipeline.syncOperations.handler(type: ConnectionDeadlineHandler.self))?.observeInputClose(closed)
        }
    }

    /// The response is written: a close after this is not its concern.
    func stop() {
        let channel = channel
        channel.eventLoop.execute {
            (try? channel.pipeline.syncOperations.handler(type: ConnectionDeadlineHandler.self))?.stopObservingInputClose()
        }
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
