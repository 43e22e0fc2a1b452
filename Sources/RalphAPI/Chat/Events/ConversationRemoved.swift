/// Data of `conversation.removed` on the global stream.
public struct ConversationRemoved: Codable, Hashable, Sendable {
    public var id: String
    public init(id: String) { self.id = id }
}
