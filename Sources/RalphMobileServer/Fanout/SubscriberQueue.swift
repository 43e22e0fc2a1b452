import DequeModule
import NIOCore
import Synchronization

/// The queue between a hub and one SSE connection, bounded in bytes.
///
/// The hub pushes pre-encoded frames (shared by every subscriber) without ever waiting, each with its position in the
/// stream's durable log (a run's line number, a conversation's sequence number, the global stream's sequence). A
/// subscriber that falls more than ``byteBudget`` bytes (or ``frameLimit`` frames) behind is never cut and never
/// skipped: the queue stops taking frames and hands its writer a ``Item/catchUp(after:)``; the writer reads what it
/// missed from the durable log (the events file, the chat event table, the global log) and, once it has reached the
/// hub's head, ``rejoin(at:)``s the live feed under the hub's lock — so nothing is lost or repeated, and a slow client
/// costs at most its budget in memory however fast events come.
final class SubscriberQueue: Sendable {
    enum Item: Sendable {
        case frame(ByteBuffer)
        case heartbeat
        /// Read the durable log after this position, then rejoin.
        case catchUp(after: Int)
        /// The last item: write it, then close the stream.
        case end(ByteBuffer)
    }

    enum Termination: Sendable, Equatable {
        /// The run ended (an `end` frame is queued).
        case ended
        /// The server is shutting down, the run file went away, or the writer was cancelled.
        case closed
    }

    struct State {
        var items = Deque<Item>()
        /// Bytes of the queued frames.
        var bytes = 0
        var frames = 0
        var waiter: CheckedContinuation<Item?, Never>?
        var termination: Termination?
        var lastActivity = ContinuousClock.now
        var cancelled = false
        /// Log position of the last frame queued (or caught up to).
        var position: Int
        /// Frames are not queued: the writer is catching up from the durable log.
        var lagging = false
    }

    let byteBudget: Int
    let frameLimit: Int
    private let state: Mutex<State>

    /// - Parameter position: the log position the subscriber starts after (what it is replayed up to).
    init(byteBudget: Int, frameLimit: Int, position: Int) {
        self.byteBudget = byteBudget
        self.frameLimit = frameLimit
        self.state = Mutex(State(position: position))
    }

    var termination: Termination? { state.withLock { $0.termination } }
    var isLagging: Bool { state.withLock { $0.lagging } }
    /// Bytes queued now (for tests and diagnostics).
    var queuedBytes: Int { state.withLock { $0.bytes } }

    /// Queues a frame at log `position`; false once the queue is terminated. Over budget, the queue switches to
    /// catching up instead (and frames are not queued until it rejoins).
    @discardableResult
    func push(_ frame: ByteBuffer, position: Int) -> Bool {
        deliver { state in
            guard state.termination == nil else { return (nil, false) }
            guard !state.lagging else { return (nil, true) }
            let size = frame.readableBytes
            if state.frames > 0, state.bytes + size > byteBudget || state.frames >= frameLimit {
                state.lagging = true
                return (.catchUp(after: state.position), true)
            }
            state.position = position
            return (.frame(frame), true)
        }
    }

    /// Queues frames in order; false once the queue is terminated.
    @discardableResult
    func push(contentsOf frames: [(position: Int, frame: ByteBuffer)]) -> Bool {
        for (position, frame) in frames where !push(frame, position: position) { return false }
        return true
    }

    /// The writer caught up to `position` (the hub's head, read under the hub's lock): frames are queued again.
    func rejoin(at position: Int) {
        state.withLock { state in
            state.lagging = false
            state.position = position
        }
    }

    /// Queues the final frame; nothing after it is accepted. A lagging subscriber gets it after its catch-up.
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
                if case .frame(let frame) = item {
                    state.bytes += frame.readableBytes
                    state.frames += 1
                }
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

    /// Queued items, oldest first, up to `limit` items or about `byteLimit` bytes, waiting for at least one; empty once
    /// the queue is terminated and drained, or the task is cancelled. Lets a writer send a burst with one write.
    func nextBatch(limit: Int = 512, byteLimit: Int = 256 << 10) async -> [Item] {
        let immediate: [Item]? = state.withLock { state in
            guard !state.cancelled, !state.items.isEmpty else { return nil }
            return Self.take(&state, limit: limit, byteLimit: byteLimit)
        }
        if let immediate { return immediate }
        guard let first = await next() else { return [] }
        if case .catchUp = first { return [first] }
        let rest = state.withLock { state in Self.take(&state, limit: limit - 1, byteLimit: byteLimit) }
        return [first] + rest
    }

    /// Takes items from the front, stopping after a catch-up marker (it needs the writer before anything else).
    private static func take(_ state: inout State, limit: Int, byteLimit: Int) -> [Item] {
        var taken: [Item] = []
        var bytes = 0
        while taken.count < limit, bytes < byteLimit, let item = state.items.popFirst() {
            if case .frame(let frame) = item {
                state.bytes -= frame.readableBytes
                state.frames -= 1
                bytes += frame.readableBytes
            }
            taken.append(item)
            if case .catchUp = item { break }
        }
        return taken
    }

    /// The next item, or nil once the queue is terminated and drained, or the task is cancelled.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
                let immediate: Item?? = state.withLock { state in
                    if state.cancelled { return .some(nil) }
                    if let item = state.items.popFirst() {
                        if case .frame(let frame) = item {
                            state.bytes -= frame.readableBytes
                            state.frames -= 1
                        }
                        return .some(item)
                    }
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
