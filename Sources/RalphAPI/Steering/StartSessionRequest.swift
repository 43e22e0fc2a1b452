/// `POST /api/sessions`: start a ralph run.
public struct StartSessionRequest: Codable, Hashable, Sendable {
    /// A config or preset file (relative to `working_dir`), or `builtin:<name>`.
    public var configPath: String
    /// A prompt file (relative to `working_dir`); give this or ``prompt``.
    public var promptPath: String?
    /// Prompt text; give this or ``promptPath``.
    public var prompt: String?
    /// Directory to run in, inside a workspace root (default: the first root). Relative paths are taken from it.
    public var workingDir: String?
    /// `-b <backend>`.
    public var backend: String?
    /// `--max-iterations <n>`.
    public var maxIterations: Int?

    public init(configPath: String, promptPath: String? = nil, prompt: String? = nil, workingDir: String? = nil, backend: String? = nil, maxIterations: Int? = nil) {
        self.configPath = configPath
        self.promptPath = promptPath
        self.prompt = prompt
        self.workingDir = workingDir
        self.backend = backend
        self.maxIterations = maxIterations
    }

    enum CodingKeys: String, CodingKey {
        case prompt, backend
        case configPath = "config_path"
        case promptPath = "prompt_path"
        case workingDir = "working_dir"
        case maxIterations = "max_iterations"
    }
}
