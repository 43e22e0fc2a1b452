import Synchronization

/// The unstructured tasks an object starts (timers, exit watchers, background matching, recovery, judge calls), kept
/// so that shutting the object down cancels them and waits for them: no task outlives its owner.
///
/// A task removes itself when it finishes; ``shutdown()`` refuses new tasks, cancels the running ones and returns
/// once every one has ended.
public final class OwnedTasks: Sendable {
    private struct State {
        var next = 0
        var running: [Int: Task<Void, Never>] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Starts `body` as a task owned here. Returns false (and starts nothing) once ``shutdown()`` began.
    @discardableResult
    public func spawn(_ body: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.next += 1
            let key = s.next
            // Its removal takes this same lock, so it cannot happen before the insertion below.
            s.running[key] = Task { [weak self] in
                await body()
                self?.finished(key)
            }
            return true
        }
    }

    private func finished(_ key: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: key) }
    }

    /// Number of tasks still running (for tests and diagnostics).
    public var count: Int { state.withLock { $0.running.count } }

    /// Cancels every task and waits until all have ended; later ``spawn(_:)`` calls start nothing.
    public func shutdown() async {
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            s.closed = true
            return Array(s.running.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
