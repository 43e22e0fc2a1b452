/// `POST /api/tasks`.
public struct CreateTaskRequest: Codable, Hashable, Sendable {
    public var title: String
    public var description: String?
    /// Default 3.
    public var priority: Int?
    public var blockedBy: [String]?

    public init(title: String, description: String? = nil, priority: Int? = nil, blockedBy: [String]? = nil) {
        self.title = title
        self.description = description
        self.priority = priority
        self.blockedBy = blockedBy
    }

    enum CodingKeys: String, CodingKey {
        case title, description, priority
        case blockedBy = "blocked_by"
    }
}
