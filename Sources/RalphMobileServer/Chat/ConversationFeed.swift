import NIOCore

/// One client's subscription to a conversation's event stream, handed out by ``ChatService/feed(_:)`` so routes never
/// touch the store: the events stored up to `live.head` are read with ``stored(after:limit:)``, then
/// ``LiveStream`` follows `live` on ``fanout``.
struct ConversationFeed: Sendable {
    let conversationID: String
    /// The subscription: its queue of live frames, and the head to replay up to first.
    let live: Fanout<String>.Live
    /// The conversations' fan-out, for catching up (``LiveStream/follow``).
    let fanout: Fanout<String>
    let store: ChatStore

    /// Stored events with sequence numbers after `after`, oldest first.
    func stored(after: Int, limit: Int) async throws -> [StoredChatEvent] {
        try await store.events(conversationID: conversationID, after: after, limit: limit)
    }

    /// Ends the subscription (the client went away).
    func close() {
        fanout.unsubscribe(conversationID, subscriberID: live.id)
    }
}

extension ChatService {
    /// Subscribes to a conversation's stream, once recovery is over. A conversation whose recovery failed, or that
    /// stopped because a step could not be stored, refuses with the reason: no live event would ever come.
    func feed(_ id: String) async throws(APIError) -> ConversationFeed {
        try await requireReady()
        if let reason = unrecovered.withLock({ $0[id] }) { throw Self.unrecoveredError(id, reason) }
        if let failure = workers.withLock({ $0[id] })?.stopped { throw .internalError("conversation \(id): \(failure)") }
        let conversation = try await conversation(id)
        if let owner = conversation.hostId, let hostID, owner != hostID, chatHub.conversations.head(id) == nil {
            // Another host's conversation, streamed from the shared store: the owner's notices bring what follows.
            chatHub.open(conversationID: id, lastSeq: try await storeCall { try await self.store.lastEventSeq(conversationID: id) })
        }
        guard let live = chatHub.subscribe(conversationID: id) else {
            throw .notFound("conversation '\(id)' does not exist")
        }
        return ConversationFeed(conversationID: id, live: live, fanout: chatHub.conversations, store: store)
    }
}
