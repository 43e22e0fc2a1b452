/// The unstructured tasks a client model starts on the main actor (a refresh after a stream event, reading titles
/// after a change), kept so that none outlives its model: stopping the model cancels them, a test can wait for them,
/// and a model that goes away cancels whatever it left running.
///
/// The client's counterpart of the server's `OwnedTasks` (the SDK does not depend on the server's modules). Unlike
/// that one it does not close: a model that stops can start again (a screen shown once more), so ``cancelAll()``
/// cancels what runs now and later ``spawn(_:)`` calls start new tasks.
@MainActor
public final class ModelTasks {
    private var next = 0
    /// A task removes itself when it ends (cancelled or not), so ``settle()`` waits for cancelled ones too.
    private var running: [Int: Task<Void, Never>] = [:]

    /// An owner with no tasks.
    public init() {}

    /// Starts `body` as a task owned here. The body should hold its model weakly: the model owns the task, not the
    /// other way round.
    @discardableResult
    public func spawn(_ body: @escaping @MainActor () async -> Void) -> Task<Void, Never> {
        next += 1
        let key = next
        // Both run on the main actor, so the task cannot end (and remove itself) before it is inserted.
        let task = Task { @MainActor [weak self] in
            await body()
            self?.running[key] = nil
        }
        running[key] = task
        return task
    }

    /// Tasks not ended yet.
    public var count: Int { running.count }

    /// Cancels every task running now; each ends at its next suspension point that checks for cancellation.
    public func cancelAll() {
        for task in running.values { task.cancel() }
    }

    /// Waits until every task (including those started meanwhile) has ended.
    public func settle() async {
        while let task = running.values.first {
            // It removes itself as it ends (a task always runs its body, even when cancelled before it started).
            await task.value
        }
    }

    deinit {
        for task in running.values { task.cancel() }
    }
}
