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

/// `201` answer of `POST /api/sessions`.
public struct StartSessionResponse: Codable, Hashable, Sendable {
    /// The new run's session id; or, when ralph has not created its events file yet, a pending id that every
    /// session route accepts and that resolves to the run once it appears.
    public var id: String
    /// `starting`.
    public var status: String
    /// True when ``id`` is a pending id.
    public var pending: Bool
    public var pid: Int
    /// `GET` this for ralph's output.
    public var log: String

    public init(id: String, status: String, pending: Bool, pid: Int, log: String) {
        self.id = id
        self.status = status
        self.pending = pending
        self.pid = pid
        self.log = log
    }
}

/// `DELETE /api/sessions/{id}`.
public struct StopSessionResponse: Codable, Hashable, Sendable {
    /// `stopped`.
    public var status: String
    /// The signal that ended it: `SIGTERM` (ralph shut down within the grace period) or `SIGKILL`.
    public var signal: String
    public var pid: Int
    /// Whether ralph wrote its `loop.terminate` record.
    public var terminated: Bool

    public init(status: String, signal: String, pid: Int, terminated: Bool) {
        self.status = status
        self.signal = signal
        self.pid = pid
        self.terminated = terminated
    }
}

/// `POST /api/sessions/{id}/pause` and `/resume`: `{"status":"paused"}` / `{"status":"resumed"}`.
public struct ControlResponse: Codable, Hashable, Sendable {
    public var status: String
    public var pid: Int

    public init(status: String, pid: Int) {
        self.status = status
        self.pid = pid
    }
}

/// `POST /api/sessions/{id}/emit`.
public struct EmitRequest: Codable, Hashable, Sendable {
    public var topic: String
    /// Any JSON; written as given (`ralph emit` writes strings and objects).
    public var payload: JSONValue?

    public init(topic: String, payload: JSONValue? = nil) {
        self.topic = topic
        self.payload = payload
    }
}

/// `200` answer of `POST /api/sessions/{id}/emit`.
public struct EmitResponse: Codable, Hashable, Sendable {
    public var success: Bool
    public var topic: String
    public var timestamp: String
    /// The new event's id (its line number), as the stream sends it.
    public var id: String

    public init(success: Bool, topic: String, timestamp: String, id: String) {
        self.success = success
        self.topic = topic
        self.timestamp = timestamp
        self.id = id
    }
}

/// `POST /api/sessions/{id}/steer`.
public struct SteerRequest: Codable, Hashable, Sendable {
    public var message: String
    public init(message: String) { self.message = message }
}

/// `200` answer of `POST /api/sessions/{id}/steer`.
public struct SteerResponse: Codable, Hashable, Sendable {
    /// `delivered`: the `human.guidance` event is in the run's file; ralph adds it to its next iteration's prompt.
    public var status: String
    public var deliveredAt: String
    public var id: String

    public init(status: String, deliveredAt: String, id: String) {
        self.status = status
        self.deliveredAt = deliveredAt
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case status, id
        case deliveredAt = "delivered_at"
    }
}

/// `GET /api/robot/questions`.
public struct RobotQuestionsResponse: Codable, Hashable, Sendable {
    public var questions: [PendingQuestion]
    public init(questions: [PendingQuestion]) { self.questions = questions }
}

/// `POST /api/robot/response`.
public struct RobotResponseRequest: Codable, Hashable, Sendable {
    public var questionId: String
    public var responseText: String

    public init(questionId: String, responseText: String) {
        self.questionId = questionId
        self.responseText = responseText
    }

    enum CodingKeys: String, CodingKey {
        case questionId = "question_id"
        case responseText = "response_text"
    }
}

/// `200` answer of `POST /api/robot/response`.
public struct RobotResponseAck: Codable, Hashable, Sendable {
    public var success: Bool
    public var questionId: String
    public var deliveredAt: String
    /// Id of the `human.response` event.
    public var id: String

    public init(success: Bool, questionId: String, deliveredAt: String, id: String) {
        self.success = success
        self.questionId = questionId
        self.deliveredAt = deliveredAt
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case success, id
        case questionId = "question_id"
        case deliveredAt = "delivered_at"
    }
}

/// `POST /api/robot/guidance`.
public struct RobotGuidanceRequest: Codable, Hashable, Sendable {
    /// The session to guide; may be omitted when exactly one run is live.
    public var sessionId: String?
    public var guidanceText: String

    public init(sessionId: String?, guidanceText: String) {
        self.sessionId = sessionId
        self.guidanceText = guidanceText
    }

    enum CodingKeys: String, CodingKey {
        case sessionId = "session_id"
        case guidanceText = "guidance_text"
    }
}

/// `200` answer of `POST /api/robot/guidance`.
public struct RobotGuidanceAck: Codable, Hashable, Sendable {
    public var success: Bool
    public var sessionId: String
    public var deliveredAt: String
    public var id: String

    public init(success: Bool, sessionId: String, deliveredAt: String, id: String) {
        self.success = success
        self.sessionId = sessionId
        self.deliveredAt = deliveredAt
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case success, id
        case sessionId = "session_id"
        case deliveredAt = "delivered_at"
    }
}

/// Event topics clients may emit: non-empty, at most 128 characters, letters, digits, `.`, `_`, `-`.
public enum Topic {
    public static let maxLength = 128

    /// Why `topic` is not acceptable, or nil when it is.
    public static func problem(with topic: String) -> String? {
        if topic.isEmpty { return "topic is empty" }
        if topic.count > maxLength { return "topic is longer than \(maxLength) characters" }
        let allowed = topic.unicodeScalars.allSatisfy { c in
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "." || c == "_" || c == "-"
        }
        return allowed ? nil : "topic may contain only letters, digits, '.', '_' and '-'"
    }
}
