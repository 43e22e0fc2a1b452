/// `PATCH /api/conversations/{id}`: only the fields given change.
public struct PatchConversationRequest: Codable, Hashable, Sendable {
    public var title: String?
    public var pinned: Bool?
    public var archived: Bool?

    public init(title: String? = nil, pinned: Bool? = nil, archived: Bool? = nil) {
        self.title = title
        self.pinned = pinned
        self.archived = archived
    }
}
