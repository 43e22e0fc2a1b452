import NIOCore

/// Fans persisted conversation events out to the SSE connections of each conversation: a ``Fanout`` keyed by
/// conversation id whose positions are the events' sequence numbers.
///
/// Events are stored (with their sequence number) before they reach the hub, in order, by the conversation's worker,
/// so "replay up to the head from the database, then live" (``LiveStream``) has no gap and no duplicate.
final class ChatHub: Sendable {
    let conversations: Fanout<String>
    /// Told the conversation's id after its events were published (the Live Activity updater looks at it again).
    private let published: @Sendable (String) -> Void

    init(queueBytes: Int, queueFrames: Int, published: @escaping @Sendable (String) -> Void = { _ in }) {
        conversations = Fanout(queueBytes: queueBytes, queueFrames: queueFrames)
        self.published = published
    }

    /// Makes a conversation known with the last sequence number already stored.
    func open(conversationID: String, lastSeq: Int) {
        conversations.open(conversationID, head: lastSeq)
    }

    /// The conversations with an open stream.
    func openConversationIDs() -> [String] { conversations.keys }

    /// Ends every stream of a deleted conversation.
    func remove(conversationID: String) {
        conversations.remove(conversationID)
    }

    /// Delivers stored events (ascending sequence numbers of one conversation).
    func publish(conversationID: String, events: [(seq: Int, frame: ByteBuffer)]) {
        guard !events.isEmpty else { return }
        conversations.publish(conversationID, frames: events.map { (position: $0.seq, frame: $0.frame) })
        published(conversationID)
    }

    /// Subscribes to a conversation: replay up to its head from the store, then follow. Nil for an unknown one.
    func subscribe(conversationID: String) -> Fanout<String>.Live? {
        guard case .live(let live) = conversations.subscribe(conversationID) else { return nil }
        return live
    }

    func unsubscribe(conversationID: String, subscriberID: Int) {
        conversations.unsubscribe(conversationID, subscriberID: subscriberID)
    }

    func sendHeartbeats(interval: Duration) {
        let now = ContinuousClock.now
        for queue in conversations.queues { queue.heartbeatIfIdle(now: now, interval: interval) }
    }

    func closeAll() { conversations.closeAll() }

    /// Catch-ups finished since the start.
    var catchUpCount: Int { conversations.catchUpCount }

    var subscriberCount: Int { conversations.subscriberCount }
}
