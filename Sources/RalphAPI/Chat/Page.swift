/// A page of a list, newest first for conversations and oldest first for messages.
public struct Page<Item: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    public var items: [Item]
    public var hasMore: Bool
    /// Pass back as `cursor` (conversations) or `before` (messages) for the next page; opaque.
    public var nextCursor: String?
    /// Messages only: the conversation's last event id when the page was read. Subscribe to its event stream after it;
    /// an event may then repeat a message of the page (same `message_id`), none is missed.
    public var lastEventId: Int?

    public init(items: [Item], hasMore: Bool, nextCursor: String?, lastEventId: Int? = nil) {
        self.items = items
        self.hasMore = hasMore
        self.nextCursor = nextCursor
        self.lastEventId = lastEventId
    }

    enum CodingKeys: String, CodingKey {
        case items
        case hasMore = "has_more"
        case nextCursor = "next_cursor"
        case lastEventId = "last_event_id"
    }
}
