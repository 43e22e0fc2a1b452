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
