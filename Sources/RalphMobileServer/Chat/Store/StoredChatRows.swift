/// A conversation's stored auto-reply settings and loop.
public struct StoredAutoReply: Sendable, Hashable {
    public var settings: [UInt8]
    public var loop: [UInt8]?
}

/// An event of a conversation's stream as stored: `seq` is its SSE `id:`.
public struct StoredChatEvent: Sendable, Hashable {
    public var conversationID: String
    /// 1, 2, 3 … per conversation, with no gaps, kept across restarts.
    public var seq: Int
    public var name: String
    /// The event's JSON bytes.
    public var data: [UInt8]
    /// When it was stored (`Timestamp.format`).
    public var createdAt: String

    public init(conversationID: String, seq: Int, name: String, data: [UInt8], createdAt: String) {
        self.conversationID = conversationID
        self.seq = seq
        self.name = name
        self.data = data
        self.createdAt = createdAt
    }
}
