import NIOCore
import Synchronization

/// Fans persisted conversation events out to the SSE connections of each conversation.
///
/// Events are stored (with their sequence number) before they reach the hub, in order, by the conversation's worker.
/// Subscribing takes the last sequence published and registers the queue under one lock, so "replay up to it from the
/// database, then live" has no gap and no duplicate.
final class ChatHub: Sendable {
    struct Channel {
        var lastSeq: Int
        var subscribers: [Int: SubscriberQueue] = [:]
    }

    struct State {
        var channels: [String: Channel] = [:]
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

    /// Makes a conversation known with the last sequence number already stored.
    func open(conversationID: String, lastSeq: Int) {
        state.withLock { state in
            if state.channels[conversationID] == nil { state.channels[conversationID] = Channel(lastSeq: lastSeq) }
        }
    }

    /// Ends every stream of a deleted conversation.
    func remove(conversationID: String) {
        let queues = state.withLock { state in state.channels.removeValue(forKey: conversationID).map { Array($0.subscribers.values) } ?? [] }
        for queue in queues { queue.close() }
    }

    /// Delivers stored events (ascending sequence numbers of one conversation).
    func publish(conversationID: String, events: [(seq: Int, frame: ByteBuffer)]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            guard var channel = state.channels[conversationID] else { return }
            let fresh = events.filter { $0.seq > channel.lastSeq }.map { (position: $0.seq, frame: $0.frame) }
            for (id, queue) in channel.subscribers where !queue.push(contentsOf: fresh) {
                channel.subscribers[id] = nil
            }
            channel.lastSeq = max(channel.lastSeq, events.last?.seq ?? 0)
            state.channels[conversationID] = channel
        }
    }

    /// Sends a frame that is not stored (it has no `id:`) to the conversation's live streams, at the current position.
    func announce(conversationID: String, frame: ByteBuffer) {
        state.withLock { state in state.channels[conversationID].map { c in c.subscribers.values.forEach { $0.push(frame, position: c.lastSeq) } } }
    }

    /// Subscribes to a conversation: replay up to `lastSeq` from the store, then read `queue`. Nil for an unknown one.
    func subscribe(conversationID: String) -> (queue: SubscriberQueue, subscriberID: Int, lastSeq: Int)? {
        state.withLock { state in
            guard var channel = state.channels[conversationID] else { return nil }
            state.nextSubscriberID += 1
            let id = state.nextSubscriberID
            let queue = SubscriberQueue(byteBudget: queueBytes, frameLimit: queueFrames, position: channel.lastSeq)
            channel.subscribers[id] = queue
            state.channels[conversationID] = channel
            return (queue, id, channel.lastSeq)
        }
    }

    /// The last sequence number published for a conversation, nil for one that is gone.
    func head(conversationID: String) -> Int? {
        state.withLock { $0.channels[conversationID]?.lastSeq }
    }

    /// A catching-up subscriber read the store through `seq`: if that is still the head, it takes live frames again
    /// (true); else it must read on (false). True once it no longer subscribes.
    func rejoin(conversationID: String, subscriberID: Int, at seq: Int) -> Bool {
        state.withLock { state in
            guard let channel = state.channels[conversationID], let queue = channel.subscribers[subscriberID] else { return true }
            guard channel.lastSeq == seq else { return false }
            queue.rejoin(at: seq)
            state.catchUps += 1
            return true
        }
    }

    func unsubscribe(conversationID: String, subscriberID: Int) {
        state.withLock { _ = $0.channels[conversationID]?.subscribers.removeValue(forKey: subscriberID) }
    }

    func sendHeartbeats(interval: Duration) {
        let queues = state.withLock { state in state.channels.values.flatMap { $0.subscribers.values } }
        let now = ContinuousClock.now
        for queue in queues { queue.heartbeatIfIdle(now: now, interval: interval) }
    }

    func closeAll() {
        let queues = state.withLock { state -> [SubscriberQueue] in
            let all = state.channels.values.flatMap { $0.subscribers.values }
            for key in state.channels.keys { state.channels[key]?.subscribers = [:] }
            return all
        }
        for queue in queues { queue.close() }
    }

    /// Catch-ups finished since the start.
    var catchUpCount: Int { state.withLock { $0.catchUps } }

    var subscriberCount: Int { state.withLock { $0.channels.values.reduce(0) { $0 + $1.subscribers.count } } }
}
