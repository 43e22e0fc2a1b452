/// `201` answer of `POST /api/loops`.
public struct SpawnLoopResponse: Codable, Hashable, Sendable {
    public var id: String
    public var worktreePath: String
    public var status: String
    /// The session id of the loop's run, to stream it.
    public var sessionId: String?
    public var pid: Int

    public init(id: String, worktreePath: String, status: String, sessionId: String?, pid: Int) {
        self.id = id
        self.worktreePath = worktreePath
        self.status = status
        self.sessionId = sessionId
        self.pid = pid
    }

    enum CodingKeys: String, CodingKey {
        case id, status, pid
        case worktreePath = "worktree_path"
        case sessionId = "session_id"
    }
}
