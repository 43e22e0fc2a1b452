extension RunSupervisor {
    public struct Configuration: Sendable {
        /// The ralph executable (a path, or a name looked up on PATH).
        public var ralphCommand = "ralph"
        /// Seconds between SIGTERM and SIGKILL when stopping.
        public var stopGrace: Double = 10
        /// Seconds `start` waits for ralph's events file before answering with a pending id.
        public var startTimeout: Double = 5
        /// A run's output log is truncated (with a note) when it grows past this many bytes.
        public var logLimit = 256 << 20
        public var dataDirectory: String
        /// The environment ralph runs with.
        public var environment: [String: String]
        /// Start runs as `ralph run --rpc` (JSON lines on stdin/stdout, see ``RpcChannel``); off for a ralph without RPC.
        public var ralphRPC = true

        public init(dataDirectory: String, environment: [String: String]) {
            self.dataDirectory = dataDirectory
            self.environment = environment
        }
    }

    /// What a start request is to run: checked and resolved by the caller.
    public struct StartPlan: Sendable {
        public var workingDirectory: String
        public var root: String
        /// Arguments after the ralph command (`run -c … -P … --autonomous --no-tui …`).
        public var arguments: [String]
        /// The id of the request that asked for the run (`X-Request-Id`), logged with its start so the run's pid and
        /// pending id can be traced to the request.
        public var requestID: String?

        public init(workingDirectory: String, root: String, arguments: [String]) {
            self.workingDirectory = workingDirectory
            self.root = root
            self.arguments = arguments
        }
    }

    public struct StartOutcome: Sendable, Equatable {
        public var id: String
        public var pending: Bool
        public var pid: Int
    }

    /// How a start the server made turned out, once it did.
    public enum StartResolution: Sendable, Equatable {
        /// ralph created this run.
        case run(String)
        /// The process ended (this way) without creating a run.
        case ended(ChildProcess.Exit)
    }

    public struct StopOutcome: Sendable, Equatable {
        public var signal: String
        public var pid: Int
        public var terminated: Bool
    }

    public enum ControlError: Error, Equatable, CustomStringConvertible {
        case notRunning(String)
        case conflict(String)
        case forbidden(String)
        case spawnFailed(String)

        public var description: String {
            switch self {
            case .notRunning(let s), .conflict(let s), .forbidden(let s), .spawnFailed(let s): s
            }
        }
    }
}
