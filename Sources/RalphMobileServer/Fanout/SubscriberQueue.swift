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
        /// Set once the writer has handed its connection to the event loop (``nextBatch(direct:)``): from then on every
        /// frame goes through the loop's ``DirectDispatcher``, written straight to the connection or queued there.
        var direct: DirectSink?
        /// The writer sleeps with nothing queued and the loop writes frames to the connection itself. Only changed on
        /// the loop. Implies an empty queue.
        var directActive = false
        /// The `end` frame was routed to the loop: nothing is taken after it.
        var endRouted = false
        /// Batches the loop wrote straight to the connection (for tests and diagnostics).
        var directWrites = 0
    }

    /// What became of frames offered to the queue.
    enum Offer {
        /// The queue is terminated: the subscriber is gone.
        case refused
        /// Queued (or dropped while catching up, to be read from the log).
        case queued
        /// To be handed to the sink's loop (``DirectDispatcher/submit(_:to:)``) by the caller, in order.
        case routed(DirectSink)
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
    /// Batches the connection's loop wrote without waking the writer (for tests and diagnostics).
    var directWrites: Int { state.withLock { $0.directWrites } }

    /// Queues a frame at log `position` (or routes it to the connection's loop); false once the queue is terminated.
    /// Over budget, the queue switches to catching up instead (and frames are not queued until it rejoins).
    @discardableResult
    func push(_ frame: ByteBuffer, position: Int) -> Bool {
        switch offer([(position, frame)]) {
        case .refused: return false
        case .queued: return true
        case .routed(let sink):
            sink.dispatcher.submit(.frames([(position, frame)]), to: [self])
            return true
        }
    }

    /// Queues frames in order; false once the queue is terminated. Frames for a queue whose writer handed its
    /// connection to the loop are not queued: the caller submits them to the loop (`.routed`), under the lock that
    /// orders them.
    func offer(_ frames: [(position: Int, frame: ByteBuffer)]) -> Offer {
        let (offer, waiter, first) = state.withLock { state -> (Offer, CheckedContinuation<Item?, Never>?, Item?) in
            guard state.termination == nil, !state.endRouted else { return (.refused, nil, nil) }
            if let sink = state.direct { return (.routed(sink), nil, nil) }
            var first: Item?
            var waiter: CheckedContinuation<Item?, Never>?
            for (position, frame) in frames {
                guard let item = Self.admit(frame, position: position, into: &state, byteBudget: byteBudget, frameLimit: frameLimit) else { continue }
                state.lastActivity = .now
                if first == nil, let pending = state.waiter {
                    state.waiter = nil
                    (waiter, first) = (pending, item)
                } else {
                    Self.append(item, to: &state)
                }
            }
            return (.queued, waiter, first)
        }
        waiter?.resume(returning: first)
        return offer
    }

    /// The item a frame becomes in the queue: the frame, a catch-up marker when it is over budget, or none while the
    /// writer catches up (the log has the frame).
    private static func admit(_ frame: ByteBuffer, position: Int, into state: inout State, byteBudget: Int, frameLimit: Int) -> Item? {
        guard !state.lagging else { return nil }
        if state.frames > 0, state.bytes + frame.readableBytes > byteBudget || state.frames >= frameLimit {
            state.lagging = true
            return .catchUp(after: state.position)
        }
        state.position = position
        return .frame(frame)
    }

    private static func append(_ item: Item, to state: inout State) {
        state.items.append(item)
        if case .frame(let frame) = item {
            state.bytes += frame.readableBytes
            state.frames += 1
        }
    }

    // MARK: - On the connection's loop (routed queues)

    /// On the loop, frames routed here: the sink to write them to when the loop may (the writer sleeps, the connection
    /// takes more) — or nil, when they were queued for the writer (woken) or the stream is over.
    func takeOnLoop(_ frames: [(position: Int?, frame: ByteBuffer)]) -> DirectSink? {
        let (sink, waiter, first) = state.withLock { state -> (DirectSink?, CheckedContinuation<Item?, Never>?, Item?) in
            guard state.termination == nil else { return (nil, nil, nil) }
            state.lastActivity = .now
            if state.directActive, let sink = state.direct, sink.isWritable {
                if let position = frames.last(where: { $0.position != nil })?.position ?? nil { state.position = position }
                state.directWrites += 1
                return (sink, nil, nil)
            }
            // The connection is full (or the writer is busy): the writer writes them, with backpressure.
            state.directActive = false
            var first: Item?
            var waiter: CheckedContinuation<Item?, Never>?
            for (position, frame) in frames {
                let item: Item?
                if let position {
                    item = Self.admit(frame, position: position, into: &state, byteBudget: byteBudget, frameLimit: frameLimit)
                } else {
                    item = state.items.isEmpty ? .heartbeat : nil
                }
                guard let item else { continue }
                if first == nil, let pending = state.waiter {
                    state.waiter = nil
                    (waiter, first) = (pending, item)
                } else {
                    Self.append(item, to: &state)
                }
            }
            return (nil, waiter, first)
        }
        waiter?.resume(returning: first)
        return sink
    }

    /// On the loop, the routed `end`: queued for the writer after what it has, which writes it and closes.
    func endOnLoop(with frame: ByteBuffer) {
        _ = deliver { state in
            guard state.termination == nil else { return (nil, false) }
            state.directActive = false
            state.termination = .ended
            return (.end(frame), true)
        }
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
        let routed = state.withLock { state -> DirectSink? in
            guard state.termination == nil, !state.endRouted, let sink = state.direct else { return nil }
            state.endRouted = true
            return sink
        }
        if let routed {
            // After the frames already routed to the loop.
            routed.dispatcher.submit(.end(frame), to: [self])
            return
        }
        _ = deliver { state in
            guard state.termination == nil, !state.endRouted else { return (nil, false) }
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
        let routed = state.withLock { state -> DirectSink? in
            guard state.termination == nil, !state.endRouted, state.items.isEmpty, now - state.lastActivity >= interval else { return nil }
            return state.direct
        }
        if let routed {
            routed.dispatcher.submit(.frames([(nil, SSEFrame.heartbeat)]), to: [self])
            return
        }
        _ = deliver { state in
            guard state.termination == nil, state.direct == nil, state.items.isEmpty, now - state.lastActivity >= interval else { return (nil, false) }
            return (.heartbeat, true)
        }
    }

    /// The writer stops (however it ends): nothing is written for it any more, on the loop or queued.
    func detach() {
        close()
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
                Self.append(item, to: &state)
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
    ///
    /// With `direct` (called on its loop, everything written so far handed to the connection), a writer about to wait
    /// hands the connection to the loop: frames that come meanwhile are written there, straight to the connection,
    /// and the writer is woken only for what the loop cannot write (a full connection, a heartbeat that found the
    /// writer busy, the end).
    func nextBatch(limit: Int = 512, byteLimit: Int = 256 << 10, direct: DirectSink? = nil) async -> [Item] {
        let immediate: [Item]? = state.withLock { state in
            guard !state.cancelled, !state.items.isEmpty else { return nil }
            return Self.take(&state, limit: limit, byteLimit: byteLimit)
        }
        if let immediate { return immediate }
        guard let first = await next(direct: direct) else { return [] }
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
    func next(direct: DirectSink? = nil) async -> Item? {
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
                    if let direct, !state.lagging, !state.endRouted, direct.isWritable {
                        // Nothing queued, nothing in flight: the loop may write to the connection from now on.
                        direct.dispatcher.eventLoop.assertInEventLoop()
                        state.direct = direct
                        state.directActive = true
                    }
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
