/// A loop in ralph's merge queue (`.ralph/merge-queue.jsonl`).
public struct MergeQueueItem: Codable, Hashable, Sendable {
    /// The loop id.
    public var id: String
    /// `pending` (queued, merging), `completed` (merged, discarded) or `failed` (needs review).
    public var status: String
    /// ralph's own state: `queued`, `merging`, `merged`, `needs_review`, `discarded`.
    public var state: String
    public var prompt: String
    public var worktreePath: String?
    public var queuedAt: String
    /// When it was merged (merged loops only).
    public var mergedAt: String?
    /// Time of its latest event.
    public var updatedAt: String
    /// The merge commit, once merged.
    public var commit: String?
    /// Why it needs review or was discarded.
    public var reason: String?

    public init(
        id: String, status: String, state: String, prompt: String, worktreePath: String?, queuedAt: String, mergedAt: String?, updatedAt: String,
        commit: String?, reason: String?
    ) {
        self.id = id
        self.status = status
        self.state = state
        self.prompt = prompt
        self.worktreePath = worktreePath
        self.queuedAt = queuedAt
        self.mergedAt = mergedAt
        self.updatedAt = updatedAt
        self.commit = commit
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case id, status, state, prompt, commit, reason
        case worktreePath = "worktree_path"
        case queuedAt = "queued_at"
        case mergedAt = "merged_at"
        case updatedAt = "updated_at"
    }
}
