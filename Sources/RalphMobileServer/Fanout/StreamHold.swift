import Hummingbird
import NIOCore
import Synchronization

/// A stream kept open after its end (for the original iOS app, which reconnects from a closed one): heartbeats until
/// the client leaves (the task is cancelled) or the server shuts down (``release()``).
final class StreamHold: Sendable {
    private let released = Mutex(false)

    func release() { released.withLock { $0 = true } }

    /// Writes a heartbeat comment every `interval` until released; throws `CancellationError` when the client left.
    @inline(never)
    func heartbeats(every interval: Duration, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch) async throws {
        let step = min(interval, .milliseconds(250))
        var waited = Duration.zero
        while !released.withLock({ $0 }) {
            try await Task.sleep(for: step)
            waited += step
            guard waited >= interval else { continue }
            waited = .zero
            try await watch.writing { try await writer.write(SSEFrame.heartbeat) }
        }
    }
}
