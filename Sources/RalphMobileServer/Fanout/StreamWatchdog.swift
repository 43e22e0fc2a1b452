import AgentRunner
import Prometheus
import Synchronization

/// Disconnects event streams whose client stopped reading.
///
/// A slow client is caught up from the durable log (``SubscriberQueue``), so it costs little memory; but a client that
/// reads nothing at all would hold its connection forever, with a write that never completes. Every stream writes
/// through its ``Watch``; ``sweep(now:timeout:)`` (once a second) closes the connection of any stream whose write has
/// been waiting for longer than the timeout. Heartbeats keep an idle stream writing, so a live but quiet client is
/// never taken for a stalled one.
///
/// The delayed closes of ``Watch/closeIfStuck(after:)`` are tasks the watchdog owns: ``shutdown()`` cuts their grace
/// short (a connection still stuck then is closed at once) and waits for them.
final class StreamWatchdog: Sendable {
    /// One stream's write timing and how to close its connection.
    final class Watch: Sendable {
        fileprivate let since = Mutex<ContinuousClock.Instant?>(nil)
        /// The shutdown's grace is over: a write that starts from now on closes the connection at once (it could wait
        /// for a client that reads nothing — the last chunk of a stream whose frames its loop wrote, for instance).
        private let graceOver = Atomic<Bool>(false)
        fileprivate let close: @Sendable () -> Void
        /// The watchdog's delayed closes.
        private let tasks: OwnedTasks
        /// Where the stream counts the frames it writes (nil: not counted).
        let counters: StreamCounters?

        fileprivate init(tasks: OwnedTasks, counters: StreamCounters?, close: @escaping @Sendable () -> Void) {
            self.tasks = tasks
            self.counters = counters
            self.close = close
        }

        /// On shutdown: a write still waiting after `grace` (the client reads nothing) would hold the shutdown
        /// forever, so the connection is closed then. Once the watchdog is shut down, that is decided at once.
        func closeIfStuck(after grace: Duration = .milliseconds(500)) {
            let started = tasks.spawn { [self] in
                // Cancellation is the only error: the watchdog shuts down, so the grace ends now.
                try? await Task.sleep(for: grace)
                closeIfWriting()
            }
            if !started { closeIfWriting() }
        }

        private func closeIfWriting() {
            graceOver.store(true, ordering: .sequentiallyConsistent)
            if since.withLock({ $0 != nil }) { close() }
        }

        /// Runs a write of the stream, timing it. After a shutdown's grace, the connection is closed first, so the
        /// write ends at once instead of waiting for the client.
        func writing<T>(_ body: () async throws -> T) async rethrows -> T {
            since.withLock { $0 = .now }
            defer { since.withLock { $0 = nil } }
            if graceOver.load(ordering: .sequentiallyConsistent) { close() }
            return try await body()
        }
    }

    private struct State {
        var watches: [Int: Watch] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    private let tasks = OwnedTasks()
    /// The server's stream counters, handed to every stream watched (nil: not counted).
    let counters: StreamCounters?

    init(counters: StreamCounters? = nil) {
        self.counters = counters
    }

    /// Watches a stream until ``unregister(_:)``; `close` closes its connection.
    func register(close: @escaping @Sendable () -> Void) -> (id: Int, watch: Watch) {
        let watch = Watch(tasks: tasks, counters: counters, close: close)
        let id = state.withLock { state in
            state.nextID += 1
            state.watches[state.nextID] = watch
            return state.nextID
        }
        return (id, watch)
    }

    func unregister(_ id: Int) {
        _ = state.withLock { $0.watches.removeValue(forKey: id) }
    }

    /// Closes the connections whose write has waited `timeout` or more; returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now, timeout: Duration) -> Int {
        let stalled = state.withLock { state -> [Watch] in
            let found = state.watches.filter { _, watch in watch.since.withLock { $0.map { now - $0 >= timeout } ?? false } }
            for id in found.keys { state.watches[id] = nil }
            return Array(found.values)
        }
        for watch in stalled { watch.close() }
        if !stalled.isEmpty { counters?.cut.increment(by: Int64(stalled.count)) }
        return stalled.count
    }

    /// Streams watched now.
    var count: Int { state.withLock { $0.watches.count } }

    /// Delayed closes not yet decided.
    var pendingCloses: Int { tasks.count }

    /// Ends the grace of every pending ``Watch/closeIfStuck(after:)`` (closing the connections still stuck) and waits
    /// for them; later calls decide at once.
    func shutdown() async {
        await tasks.shutdown()
    }
}
