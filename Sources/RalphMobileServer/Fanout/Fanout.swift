import NIOCore
import Synchronization

/// Fans pre-encoded frames out by key (a run, a conversation) to the SSE connections that follow it.
///
/// Each key has a durable, ordered log elsewhere (a run's events file, a conversation's event table) whose positions
/// the frames carry. Subscribing returns the key's head — the last position published — and registers the
/// subscriber's queue under the same lock that publishing takes, so "replay (after, head] from the log, then read the
/// queue" (``LiveStream``) has no gap and no duplicate. Frames are encoded by the caller before the lock is taken;
/// under it only queues are appended to.
///
/// Besides the log's frames a subscriber may take *state frames* (a run's session detail): they carry no log
/// position of their own and go only to subscribers that asked for them (``Subscription/Live/wantsState``).
final class Fanout<Key: Hashable & Sendable>: Sendable {
    struct Subscriber {
        var queue: SubscriberQueue
        var wantsState: Bool
        /// Has not had a state frame since it subscribed or caught up.
        var needsState: Bool
    }

    struct Channel {
        /// Position of the last frame published.
        var head: Int
        /// Bumped when the log restarts (a run file replaced): positions of different generations do not compare.
        var generation: Int
        /// False once the log is complete: new subscribers replay and end.
        var isLive: Bool
        var subscribers: [Int: Subscriber] = [:]
    }

    /// A subscriber taking live frames.
    struct Live: Sendable {
        let queue: SubscriberQueue
        let id: Int
        /// The position up to which it must be replayed from the log.
        let head: Int
        let generation: Int
    }

    /// Outcome of subscribing.
    enum Subscription: Sendable {
        /// Replay up to `live.head` from the log, then read `live.queue`.
        case live(Live)
        /// The log is complete: replay up to `head`, then end.
        case finished(head: Int, generation: Int)
        case unknown

        /// The position up to which the log must be replayed.
        var head: Int {
            switch self {
            case .live(let live): live.head
            case .finished(let head, _): head
            case .unknown: 0
            }
        }
    }

    struct State {
        var channels: [Key: Channel] = [:]
        var nextSubscriberID = 0
        /// Catch-ups finished (subscribers that fell behind, read the durable log and rejoined), for diagnostics.
        var catchUps = 0
    }

    /// Bounds of each subscriber's queue (see ``SubscriberQueue``).
    let queueBytes: Int
    let queueFrames: Int
    private let state = Mutex(State())

    init(queueBytes: Int, queueFrames: Int) {
        self.queueBytes = queueBytes
        self.queueFrames = queueFrames
    }

    // MARK: - Publishing

    /// Makes a key known with the head its log already has; a key already known keeps its channel unless `replace`.
    func open(_ key: Key, head: Int, generation: Int = 0, isLive: Bool = true, replace: Bool = false) {
        state.withLock { state in
            guard replace || state.channels[key] == nil else { return }
            let subscribers = state.channels[key]?.subscribers ?? [:]
            state.channels[key] = Channel(head: head, generation: generation, isLive: isLive, subscribers: subscribers)
        }
    }

    /// Delivers frames (ascending positions) and moves the head to `head` (or the last frame's position). Frames at or
    /// before the current head were delivered already and are skipped. Without `end` the log is live; with it, the log
    /// is complete: every subscriber gets `end` after the frames — except those that take state frames when
    /// `holdEndForState`, which the caller ends with ``endHeld(_:with:)`` once it has sent them the final state.
    func publish(
        _ key: Key, frames: [(position: Int, frame: ByteBuffer)], head: Int? = nil, end: ByteBuffer? = nil, holdEndForState: Bool = false
    ) {
        state.withLock { state in
            Self.update(key, in: &state) { channel in
                Self.publish(frames, head: head, end: end, holdEndForState: holdEndForState, to: &channel)
            }
        }
    }

    private static func publish(
        _ frames: [(position: Int, frame: ByteBuffer)], head: Int?, end: ByteBuffer?, holdEndForState: Bool, to channel: inout Channel
    ) {
        let fresh = frames.filter { $0.position > channel.head }
        var routes = DirectRoutes()
        for (id, subscriber) in channel.subscribers {
            switch subscriber.queue.offer(fresh) {
            case .refused: channel.subscribers[id] = nil
            case .queued: break
            case .routed(let sink): routes.add(subscriber.queue, via: sink.dispatcher)
            }
        }
        // Under the lock, so the next publish's frames (and an `end` below) follow these on each loop.
        if !fresh.isEmpty { routes.submit(.frames(fresh.map { (Optional($0.position), $0.frame) })) }
        channel.head = max(channel.head, head ?? fresh.last?.position ?? channel.head)
        // Without `end` the log is live (again): a run's liveness is only known once its lock has been probed.
        channel.isLive = end == nil
        if let end {
            for (id, subscriber) in channel.subscribers where !(holdEndForState && subscriber.wantsState) {
                subscriber.queue.end(with: end)
                channel.subscribers[id] = nil
            }
        }
    }

    /// Queues a state frame for the subscribers that take them — all of them when `changed`, else only those that have
    /// not had one yet — provided the head is still `head` (the state describes the log up to there; when the log
    /// moved on, a newer state follows). Returns whether the head matched.
    @discardableResult
    func publishState(_ key: Key, frame: ByteBuffer, head: Int, changed: Bool) -> Bool {
        state.withLock { state in
            Self.update(key, in: &state) { channel in
                guard channel.head == head else { return false }
                var routes = DirectRoutes()
                for (id, subscriber) in channel.subscribers where subscriber.wantsState && (changed || subscriber.needsState) {
                    switch subscriber.queue.offer([(head, frame)]) {
                    case .refused: channel.subscribers[id] = nil
                    case .queued: channel.subscribers[id]?.needsState = subscriber.queue.isLagging
                    case .routed(let sink):
                        // Written on the loop, or queued there; a subscriber catching up is sent a fresh one on rejoining.
                        routes.add(subscriber.queue, via: sink.dispatcher)
                        channel.subscribers[id]?.needsState = false
                    }
                }
                routes.submit(.frames([(head, frame)]))
                return true
            } ?? false
        }
    }

    /// Ends the subscribers whose end was held for a last state frame (see ``publish(_:frames:head:end:holdEndForState:)``).
    func endHeld(_ key: Key, with end: ByteBuffer) {
        state.withLock { state in
            Self.update(key, in: &state) { channel in
                guard !channel.isLive else { return }
                for subscriber in channel.subscribers.values { subscriber.queue.end(with: end) }
                channel.subscribers = [:]
            }
        }
    }

    /// The log restarted (ids begin again): connected subscribers are closed — they reconnect and are replayed the new
    /// log — and the channel starts over at `head`.
    func restart(_ key: Key, head: Int, generation: Int, isLive: Bool) {
        let queues = state.withLock { state -> [SubscriberQueue] in
            let queues = state.channels[key].map { $0.subscribers.values.map(\.queue) } ?? []
            state.channels[key] = Channel(head: head, generation: generation, isLive: isLive)
            return queues
        }
        for queue in queues { queue.close() }
    }

    /// Forgets a key: its subscribers get `end` (or are closed without it). Returns the head it had.
    @discardableResult
    func remove(_ key: Key, end: (Int) -> ByteBuffer? = { _ in nil }) -> Int? {
        let removed = state.withLock { $0.channels.removeValue(forKey: key) }
        guard let removed else { return nil }
        let frame = end(removed.head)
        for subscriber in removed.subscribers.values {
            if let frame { subscriber.queue.end(with: frame) } else { subscriber.queue.close() }
        }
        return removed.head
    }

    /// Changes a key's channel in place — never a copy of it, which would copy its subscribers (a thousand subscribers
    /// would make every publish and subscribe a thousand-entry copy); nil for an unknown key.
    private static func update<R>(_ key: Key, in state: inout State, _ body: (inout Channel) -> R) -> R? {
        guard state.channels[key] != nil else { return nil }
        return body(&state.channels[key]!)
    }

    // MARK: - Subscribing

    func subscribe(_ key: Key, wantsState: Bool = false) -> Subscription {
        state.withLock { state in
            state.nextSubscriberID += 1
            let id = state.nextSubscriberID
            let (queueBytes, queueFrames) = (self.queueBytes, self.queueFrames)
            return Self.update(key, in: &state) { channel -> Subscription in
                guard channel.isLive else { return .finished(head: channel.head, generation: channel.generation) }
                let queue = SubscriberQueue(byteBudget: queueBytes, frameLimit: queueFrames, position: channel.head)
                channel.subscribers[id] = Subscriber(queue: queue, wantsState: wantsState, needsState: wantsState)
                return .live(Live(queue: queue, id: id, head: channel.head, generation: channel.generation))
            } ?? .unknown
        }
    }

    /// Whether anyone follows a key now.
    func hasSubscribers(_ key: Key) -> Bool {
        state.withLock { !($0.channels[key]?.subscribers.isEmpty ?? true) }
    }

    /// Every key known.
    var keys: [Key] { state.withLock { Array($0.channels.keys) } }

    /// The head of a key's log (how far a catching-up subscriber must read), nil for a key that is gone.
    func head(_ key: Key) -> Int? {
        state.withLock { $0.channels[key]?.head }
    }

    /// A catching-up subscriber read the log through `position`: if that is still the head, it takes live frames again
    /// (true) — and, if it takes state frames, needs a fresh one; if the log moved on meanwhile, it must read on
    /// (false). True as well once it no longer subscribes (what follows is in its queue).
    func rejoin(_ key: Key, subscriberID: Int, at position: Int) -> Bool {
        state.withLock { state in
            guard let channel = state.channels[key], let subscriber = channel.subscribers[subscriberID] else { return true }
            guard channel.head == position else { return false }
            subscriber.queue.rejoin(at: position)
            if subscriber.wantsState { state.channels[key]?.subscribers[subscriberID]?.needsState = true }
            state.catchUps += 1
            return true
        }
    }

    func unsubscribe(_ key: Key, subscriberID: Int) {
        state.withLock { _ = $0.channels[key]?.subscribers.removeValue(forKey: subscriberID) }
    }

    /// Whether a key has subscribers that take state frames (and which of them still need a first one).
    func stateInterest(_ key: Key) -> (any: Bool, needing: Bool) {
        state.withLock { state in
            guard let channel = state.channels[key] else { return (false, false) }
            var result = (any: false, needing: false)
            for subscriber in channel.subscribers.values where subscriber.wantsState {
                result.any = true
                if subscriber.needsState { result.needing = true }
            }
            return result
        }
    }

    // MARK: - Housekeeping

    /// Every subscriber's queue (for heartbeats).
    var queues: [SubscriberQueue] {
        state.withLock { state in state.channels.values.flatMap { $0.subscribers.values.map(\.queue) } }
    }

    /// Closes every stream (graceful shutdown).
    func closeAll() {
        let queues = state.withLock { state -> [SubscriberQueue] in
            let all = state.channels.values.flatMap { $0.subscribers.values.map(\.queue) }
            for key in state.channels.keys { state.channels[key]?.subscribers = [:] }
            return all
        }
        for queue in queues { queue.close() }
    }

    /// Catch-ups finished since the start.
    var catchUpCount: Int { state.withLock { $0.catchUps } }

    var subscriberCount: Int { state.withLock { $0.channels.values.reduce(0) { $0 + $1.subscribers.count } } }
}
