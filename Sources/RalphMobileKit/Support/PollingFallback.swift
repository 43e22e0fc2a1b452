import Observation

/// The polling that stands in for a list's live stream while it is not connected (a proxy may block streams, the
/// server may be restarting), so the list never goes stale: every interval it asks whether the stream is connected,
/// stands by while it is, and reads the list again while it is not. Written once for the lists that follow the
/// global stream (the SDK's sessions list, the app's conversations list).
///
/// The loop holds its list weakly (through the closures given to ``start(interval:isConnected:refresh:)``) and
/// ends when the list is gone, on ``stop()``, or when this object goes away.
@MainActor
@Observable
public final class PollingFallback {
    /// Whether the list is being polled now (its stream was found not connected at the last tick).
    public private(set) var isPolling = false
    @ObservationIgnored private var task: Task<Void, Never>?

    /// A fallback that does not poll until ``start(interval:isConnected:refresh:)``.
    public init() {}

    /// Starts the loop unless it runs. `interval` and `isConnected` answer nil once the list is gone.
    public func start(
        interval: @escaping @MainActor () -> Duration?, isConnected: @escaping @MainActor () -> Bool?, refresh: @escaping @MainActor () async -> Void
    ) {
        guard task == nil else { return }
        task = Task { [weak self] in
            while !Task.isCancelled {
                guard let pause = interval() else { return }
                // The sleep ends early only when the loop is cancelled, checked just below.
                try? await Task.sleep(for: pause)
                guard let self, !Task.isCancelled, let connected = isConnected() else { return }
                self.isPolling = !connected
                if !connected { await refresh() }
            }
        }
    }

    /// The stream is connected again: polling stands by (the loop keeps checking).
    public func streamConnected() { isPolling = false }

    /// Ends the loop.
    public func stop() {
        task?.cancel()
        task = nil
        isPolling = false
    }

    deinit { task?.cancel() }
}
