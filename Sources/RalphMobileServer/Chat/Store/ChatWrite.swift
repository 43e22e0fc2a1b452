import RalphAPI

/// One change to the chat database, applied by ``ChatStore/commit(_:)`` in order, inside one transaction.
public enum ChatWrite: Sendable {
    /// Inserts the conversation, or replaces every field of the stored one (its list tie-breaker and everything that
    /// belongs to it are kept).
    case conversation(Conversation)
    /// Deletes a conversation and, by cascade, its messages, turns, approvals and events. Unknown ids are a no-op.
    case deleteConversation(String)
    /// Inserts a message, or replaces every field of the stored one; it keeps its original place in the
    /// conversation's order either way.
    case message(ChatMessage)
    /// Inserts a turn, or replaces every field of the stored one, keeping its queue position.
    case turn(Turn)
    /// Inserts an approval, or replaces every field of the stored one, keeping its position.
    case approval(Approval)
    /// Appends an event to the conversation's stream with the next sequence number (1, 2, 3 …, no gaps).
    /// `data` is the event's JSON bytes, sent as they are.
    case event(conversationID: String, name: String, data: [UInt8])
    /// Stores a conversation's auto-reply settings and loop state (JSON bytes; `loop` nil before it first ran).
    case autoReply(conversationID: String, settings: [UInt8], loop: [UInt8]?)
    /// Stores the default auto-reply settings of a working directory.
    case autoReplyDefaults(cwd: String, settings: [UInt8])
    /// Records a notification in the outbox, in the transaction of the step that caused it (once per key).
    case notification(NotificationEvent)
}

extension ChatWrite {
    /// The conversation the write is about, if any.
    var conversationID: String? {
        switch self {
        case .conversation(let c): c.id
        case .deleteConversation(let id): id
        case .message(let m): m.conversationId
        case .turn(let t): t.conversationId
        case .approval(let a): a.conversationId
        case .event(let id, _, _), .autoReply(let id, _, _): id
        case .autoReplyDefaults, .notification: nil
        }
    }
}
