import DequeModule
import NIOCore
import Synchronization

/// The bounded queue between the event hub and one SSE connection.
///
/// The hub pushes pre-encoded frames without ever waiting. A subscriber that falls more than `capacity` frames behind
/// is *cut*: it gets what is already queued, then its stream closes, and the client resumes with `Last-Event-ID`.
/// Nothing is skipped silently and a slow client never holds up the others.
final class SubscriberQueue: Sendable {
    enum Item: Sendable {
        case frame(ByteBuffer)
        case heartbeat
        /// The last item: write it, then close the stream.
        case end(ByteBuffer)
    }

    enum Termination: Sendable, Equatable {
        /// The run ended (an `end` frame is queued).
        case ended
        /// The subscriber fell behind.
        case overflow
        /// The server is shutting down or the run file went away.
        case closed
    }

    struct State {
        var items = Deque<Item>()
        var waiter: CheckedContinuation<Item?, Never>?
        var termination: Termination?
        var lastActivity = ContinuousClock.now
        var cancelled = false
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    var termination: Termination? { state.withLock { $0.termination } }

    /// Queues a frame; false if the subscriber was cut (now or before).
    @discardableResult
    func push(_ frame: ByteBuffer) -> Bool {
        deliver { state in
            guard state.termination == nil else { return (nil, false) }
            if state.items.count >= capacity {
                state.termination = .overflow
                return (nil, false)
            }
            return (.frame(frame), true)
        }
    }

    /// Queues frames in order; false if the subscriber was cut.
    @discardableResult
    func push(contentsOf frames: [ByteBuffer]) -> Bool {
        for frame in frames where !push(frame) { return false }
        return true
    }

    /// Queues the final frame; nothing after it is accepted.
    func end(with frame: ByteBuffer) {
        _ = deliver { state in
            guard state.termination == nil else { return (nil, false) }
            state.termination = .ended
            return (.end(frame), true)
        }
    }

    /// Closes the stream after what is queued.
    func close() {
        _ = deliver { state in
            if state.termination == nil { state.termination = .closed }
            return (nil, true)
        }
    }

    /// Queues a heartbeat if nothing was queued or written for `interval`.
    func heartbeatIfIdle(now: ContinuousClock.Instant, interval: Duration) {
        _ = deliver { state in
            guard state.termination == nil, state.items.isEmpty, now - state.lastActivity >= interval else { return (nil, false) }
            return (.heartbeat, true)
        }
    }

    /// Applies `change` under the lock; an item it returns goes to the waiting reader or the queue. A waiting reader
    /// is also woken when the queue is terminated, so it can see the end.
    private func deliver(_ change: (inout State) -> (Item?, Bool)) -> Bool {
        let (resume, item, result): (CheckedContinuation<Item?, Never>?, Item?, Bool) = state.withLock { state in
            let (item, result) = change(&state)
            if let item {
                state.lastActivity = .now
                if let waiter = state.waiter {
                    state.waiter = nil
                    return (waiter, item, result)
                }
                state.items.append(item)
                return (nil, nil, result)
            }
            if state.termination != nil, state.items.isEmpty, let waiter = state.waiter {
                state.waiter = nil
                return (waiter, nil, result)
            }
            return (nil, nil, result)
        }
        resume?.resume(returning: item)
        return result
    }

    /// Everything queued, oldest first, up to `limit` items, waiting for at least one; empty once the queue is
    /// terminated and drained, or the task is cancelled. Lets a writer send a burst with one write.
    func nextBatch(limit: Int = 512) async -> [Item] {
        let immediate: [Item]? = state.withLock { state in
            guard !state.cancelled, !state.items.isEmpty else { return nil }
            return Self.take(&state.items, limit: limit)
        }
        if let immediate { return immediate }
        guard let first = await next() else { return [] }
        let rest = state.withLock { state in Self.take(&state.items, limit: limit - 1) }
        return [first] + rest
    }

    private static func take(_ items: inout Deque<Item>, limit: Int) -> [Item] {
        let count = min(limit, items.count)
        guard count > 0 else { return [] }
        let taken = Array(items.prefix(count))
        items.removeFirst(count)
        return taken
    }

    /// The next item, or nil once the queue is terminated and drained, or the task is cancelled.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
                let immediate: Item?? = state.withLock { state in
                    if state.cancelled { return .some(nil) }
                    if let item = state.items.popFirst() { return .some(item) }
                    if state.termination != nil { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
                state.cancelled = true
                if state.termination == nil { state.termination = .closed }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
