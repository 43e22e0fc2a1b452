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

    public init(
        id: String, title: String, description: String?, status: String, priority: Int, blockedBy: [String], loopId: String?, createdAt: String,
        updatedAt: String?
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
    }

    enum CodingKeys: String, CodingKey {
        case id, title, description, status, priority
        case blockedBy = "blocked_by"
        case loopId = "loop_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Statuses ralph writes.
    public static let statuses = ["open", "in_progress", "closed", "failed"]
}

/// `GET /api/tasks`.
public struct TasksResponse: Codable, Hashable, Sendable {
    public var tasks: [TaskItem]
    public var total: Int
    public init(tasks: [TaskItem], total: Int) {
        self.tasks = tasks
        self.total = total
    }
}

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

/// `PUT /api/tasks/{id}`.
public struct UpdateTaskRequest: Codable, Hashable, Sendable {
    public var status: String
    public init(status: String) { self.status = status }
}

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

/// `GET /api/loops`.
public struct LoopsResponse: Codable, Hashable, Sendable {
    public var loops: [LoopInfo]
    public init(loops: [LoopInfo]) { self.loops = loops }
}

/// `POST /api/loops`.
public struct SpawnLoopRequest: Codable, Hashable, Sendable {
    public var prompt: String
    public var configPath: String?
    /// Accepted when it is the branch the workspace has checked out: ralph's worktrees start from the current HEAD.
    public var baseBranch: String?

    public init(prompt: String, configPath: String? = nil, baseBranch: String? = nil) {
        self.prompt = prompt
        self.configPath = configPath
        self.baseBranch = baseBranch
    }

    enum CodingKeys: String, CodingKey {
        case prompt
        case configPath = "config_path"
        case baseBranch = "base_branch"
    }
}

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

/// `POST /api/loops/{id}/merge` and `/discard`.
public struct OperationResponse: Codable, Hashable, Sendable {
    public var success: Bool
    public var message: String
    public init(success: Bool, message: String) {
        self.success = success
        self.message = message
    }
}

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

/// `GET /api/merge-queue`.
public struct MergeQueueResponse: Codable, Hashable, Sendable {
    public var pending: [MergeQueueItem]
    public var completed: [MergeQueueItem]
    public init(pending: [MergeQueueItem], completed: [MergeQueueItem]) {
        self.pending = pending
        self.completed = completed
    }
}

/// A skill as the original API shows it.
public struct SkillItem: Codable, Hashable, Sendable {
    public var name: String
    public var description: String
    public var tags: [String]
    public var hats: [String]
    public var backends: [String]
    public var autoInject: Bool
    /// `built-in` or `file`.
    public var source: String
    /// The skill file, relative to its workspace (file skills).
    public var path: String?

    public init(name: String, description: String, tags: [String], hats: [String], backends: [String], autoInject: Bool, source: String, path: String?) {
        self.name = name
        self.description = description
        self.tags = tags
        self.hats = hats
        self.backends = backends
        self.autoInject = autoInject
        self.source = source
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case name, description, tags, hats, backends, source, path
        case autoInject = "auto_inject"
    }
}

/// `GET /api/skills`.
public struct SkillsResponse: Codable, Hashable, Sendable {
    public var skills: [SkillItem]
    public var count: Int
    public init(skills: [SkillItem], count: Int) {
        self.skills = skills
        self.count = count
    }
}

/// `POST /api/skills/{name}/load`.
public struct SkillContentResponse: Codable, Hashable, Sendable {
    public var name: String
    /// `<name-skill>` … `</name-skill>` around the body, as ralph injects it.
    public var content: String
    public init(name: String, content: String) {
        self.name = name
        self.content = content
    }
}
