import Synchronization

/// Background work an object starts and must not leave behind: every task started here is cancelled and awaited by
/// ``cancelAndWait()`` (the owner's shutdown). A finished task removes itself. Once shut down, nothing new starts.
final class OwnedTasks: Sendable {
    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        var next = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Starts `operation` as an owned task; false (and nothing started) once the owner shut down.
    @discardableResult
    func run(_ operation: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            let id = state.next
            state.next += 1
            state.tasks[id] = Task { [self] in
                await operation()
                self.state.withLock { _ = $0.tasks.removeValue(forKey: id) }
            }
            return true
        }
    }

    /// How many tasks are still running (for tests and diagnostics).
    var count: Int { state.withLock { $0.tasks.count } }

    /// Refuses new tasks, cancels the running ones and waits for them to end.
    func cancelAndWait() async {
        let tasks = state.withLock { state in
            state.closed = true
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
