/// A loop of ralph's registry (`.ralph/loops.json`).
public struct LoopInfo: Codable, Hashable, Sendable {
    public var id: String
    /// `worktree` (a parallel loop in `.worktrees/<name>`) or `primary`.
    public var status: String
    public var prompt: String
    public var pid: Int
    public var startedAt: String
    public var worktreePath: String?
    public var workspace: String

    public init(id: String, status: String, prompt: String, pid: Int, startedAt: String, worktreePath: String?, workspace: String) {
        self.id = id
        self.status = status
        self.prompt = prompt
        self.pid = pid
        self.startedAt = startedAt
        self.worktreePath = worktreePath
        self.workspace = workspace
    }

    enum CodingKeys: String, CodingKey {
        case id, status, prompt, pid, workspace
        case startedAt = "started_at"
        case worktreePath = "worktree_path"
    }
}
