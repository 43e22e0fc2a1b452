/// An agent wave as ralph's RPC mode reports it (ralph 2.9+: one hat fanned out to parallel workers inside an
/// iteration): `wave_started`, a `wave_worker_done` per worker, `wave_completed`. The wave in progress, or the latest
/// one once it completed (the next `wave_started` replaces it).
public struct RpcWave: Codable, Hashable, Sendable {
    /// One worker that finished.
    public struct Worker: Codable, Hashable, Sendable {
        /// Zero-based, as ralph numbers them.
        public var index: Int
        public var success: Bool
        public var durationMs: Int
        /// ralph's preview of the worker's payload (its role).
        public var preview: String

        public init(index: Int, success: Bool, durationMs: Int, preview: String) {
            self.index = index
            self.success = success
            self.durationMs = durationMs
            self.preview = preview
        }

        enum CodingKeys: String, CodingKey {
            case index, success, preview
            case durationMs = "duration_ms"
        }
    }

    /// The hat fanned out (`hat_name`).
    public var hat: String
    /// How many workers run in parallel (`worker_count`).
    public var workerCount: Int
    /// Each worker's time limit.
    public var timeoutSecs: Int
    /// The iteration the wave belongs to, when one was in progress.
    public var iteration: Int?
    /// Workers that finished, in the order they did.
    public var done: [Worker]
    /// Whether `wave_completed` came.
    public var completed: Bool
    /// `wave_completed`'s counts and duration.
    public var succeeded: Int?
    public var failed: Int?
    public var durationMs: Int?
    public var startedAt: String

    public init(
        hat: String, workerCount: Int, timeoutSecs: Int, iteration: Int? = nil, done: [Worker] = [], completed: Bool = false,
        succeeded: Int? = nil, failed: Int? = nil, durationMs: Int? = nil, startedAt: String
    ) {
        self.hat = hat
        self.workerCount = workerCount
        self.timeoutSecs = timeoutSecs
        self.iteration = iteration
        self.done = done
        self.completed = completed
        self.succeeded = succeeded
        self.failed = failed
        self.durationMs = durationMs
        self.startedAt = startedAt
    }

    enum CodingKeys: String, CodingKey {
        case hat, iteration, done, completed, succeeded, failed
        case workerCount = "worker_count"
        case timeoutSecs = "timeout_secs"
        case durationMs = "duration_ms"
        case startedAt = "started_at"
    }
}
