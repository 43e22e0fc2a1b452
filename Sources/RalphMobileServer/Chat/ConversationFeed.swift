import NIOCore

/// One client's subscription to a conversation's event stream, handed out by ``ChatService/feed(_:)`` so routes never
/// touch the store or the hub: the events stored up to ``lastSeq`` are read with ``stored(after:limit:)``, live
/// frames arrive in ``queue``, and a subscriber that fell behind reads on to ``head`` and ``rejoin(at:)``s.
struct ConversationFeed: Sendable {
    let conversationID: String
    /// Live frames after ``lastSeq``.
    let queue: SubscriberQueue
    /// The last sequence number stored when the subscription began: replay up to it, then read ``queue``.
    let lastSeq: Int
    let subscriberID: Int
    let hub: ChatHub
    let store: ChatStore

    /// Stored events with sequence numbers after `after`, oldest first.
    func stored(after: Int, limit: Int) async throws -> [StoredChatEvent] {
        try await store.events(conversationID: conversationID, after: after, limit: limit)
    }

    /// The last sequence number published, nil once the conversation is gone.
    var head: Int? { hub.head(conversationID: conversationID) }

    /// After catching up through `seq`: true when live frames flow again (or the subscription is over).
    func rejoin(at seq: Int) -> Bool {
        hub.rejoin(conversationID: conversationID, subscriberID: subscriberID, at: seq)
    }

    /// Ends the subscription (the client went away).
    func close() {
        hub.unsubscribe(conversationID: conversationID, subscriberID: subscriberID)
    }
}

extension ChatService {
    /// Subscribes to a conversation's stream, once recovery is over (a conversation whose recovery failed refuses:
    /// no live event would ever come).
    func feed(_ id: String) async throws(APIError) -> ConversationFeed {
        try await requireReady()
        if let reason = unrecovered.withLock({ $0[id] }) { throw Self.unrecoveredError(id, reason) }
        _ = try await conversation(id)
        guard let (queue, subscriberID, lastSeq) = chatHub.subscribe(conversationID: id) else {
            throw .notFound("conversation '\(id)' does not exist")
        }
        return ConversationFeed(conversationID: id, queue: queue, lastSeq: lastSeq, subscriberID: subscriberID, hub: chatHub, store: store)
    }
}
