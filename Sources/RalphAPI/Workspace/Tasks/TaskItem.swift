/// A runtime task of ralph (`.ralph/agent/tasks.jsonl`), as the original API shows it.
public struct TaskItem: Codable, Hashable, Sendable {
    public var id: String
    public var title: String
    public var description: String?
    /// `open`, `in_progress`, `closed` or `failed`.
    public var status: String
    /// 1 (highest) to 5.
    public var priority: Int
    public var blockedBy: [String]
    public var loopId: String?
    /// ralph's `created`.
    public var createdAt: String
    /// ralph's `closed` (set when a task is closed or failed).
    public var updatedAt: String?
    /// ralph's stable key (ralph ≥ 2.10; tasks.jsonl `key`, looked up by `get_by_key`).
    public var key: String?
    /// ralph's `started`: when the task first went `in_progress` (ralph ≥ 2.10).
    public var startedAt: String?

    public init(
        id: String, title: String, description: String?, status: String, priority: Int, blockedBy: [String], loopId: String?, createdAt: String,
        updatedAt: String?, key: String? = nil, startedAt: String? = nil
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.status = status
        self.priority = priority
        self.blockedBy = blockedBy
        self.loopId = loopId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.key = key
        self.startedAt = startedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, title, description, status, priority, key
        case startedAt = "started_at"
        case blockedBy = "blocked_by"
        case loopId = "loop_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Statuses ralph writes.
    public static let statuses = ["open", "in_progress", "closed", "failed"]
}
