import Synchronization

/// A one-way switch that tasks can wait for: once ``open()`` is called, every waiter (present and future) goes on.
/// A wait also ends when its task is cancelled, so it can be raced against a deadline (``withDeadline(_:_:)``).
public final class StopLatch: Sendable {
    private let state = Mutex<(open: Bool, next: Int, waiters: [Int: CheckedContinuation<Bool, Never>])>((false, 0, [:]))

    public init() {}

    public var isOpen: Bool { state.withLock { $0.open } }

    public func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            s.open = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        waiters.forEach { $0.resume(returning: true) }
    }

    /// True once the latch is open; false if the task was cancelled first.
    @discardableResult
    public func wait() async -> Bool {
        let key = state.withLock { s -> Int in
            s.next += 1
            return s.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    if s.open { return true }
                    if Task.isCancelled { return false }
                    s.waiters[key] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: key) }
            continuation?.resume(returning: false)
        }
    }
}
