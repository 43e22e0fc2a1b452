import NIOCore

/// Runs a task's jobs on one NIO event loop: the loop of the connection a stream writes to.
///
/// An SSE stream's writer task waits on its ``SubscriberQueue`` and writes to its channel. On the default executor
/// every delivery costs two hops — the cooperative pool wakes the task, then the write hops to the channel's event
/// loop. Preferring this executor for the stream's task (`withTaskExecutorPreference`) makes the wake-up land on the
/// channel's own loop, where the write goes straight into the channel.
final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    /// Runs `operation` with its jobs on `eventLoop`.
    static func run<T>(on eventLoop: any EventLoop, _ operation: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(EventLoopExecutor(eventLoop), operation: operation)
    }
}
