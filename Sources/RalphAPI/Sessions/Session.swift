/// What the RalphMobile client keys on: `live` opens the event stream, anything else does not.
///
/// An open set (a struct, not an enum) so a client decoding a value a newer server adds does not fail.
public struct SessionMode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The run is the workspace's current run and its loop is alive.
    public static let live = SessionMode(rawValue: "live")
    /// The run was paused by this server (SIGSTOP).
    public static let paused = SessionMode(rawValue: "paused")
    /// Anything else: finished, stopped, crashed, or an older run of the workspace.
    public static let complete = SessionMode(rawValue: "complete")
}

/// How a run stands, from the `loop.terminate` record when there is one.
public struct SessionStatus: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Started by this server; ralph has not created its events file yet.
    public static let starting = SessionStatus(rawValue: "starting")
    public static let running = SessionStatus(rawValue: "running")
    public static let paused = SessionStatus(rawValue: "paused")
    /// `loop.terminate` with reason `completed`.
    public static let completed = SessionStatus(rawValue: "completed")
    /// `loop.terminate` with a limit or failure reason (max_iterations, consecutive_failures, …).
    public static let failed = SessionStatus(rawValue: "failed")
    /// Interrupted or stopped, or the loop ended without writing `loop.terminate`.
    public static let stopped = SessionStatus(rawValue: "stopped")
}

/// One ralph run, as listed by `GET /api/sessions` and returned by `GET /api/sessions/{id}/status`.
///
/// The original fields (`id`, `iteration`, `hat`, `started_at`, `total`, `elapsed_secs`, `mode`) keep their names and
/// types; the rest are additions the original client ignores.
public struct Session: Codable, Hashable, Sendable {
    /// 16 lowercase hex chars, a stable hash of the run file's absolute path.
    public var id: String
    /// Iteration of the latest orchestrator record (0 before the first one).
    public var iteration: Int
    /// `max_iterations` of the run's config, when known.
    public var total: Int?
    /// The hat at work: the hat triggered by the latest orchestrator record.
    public var hat: String?
    /// Seconds from the first event to now (live) or to the last event (finished).
    public var elapsedSecs: Int
    public var mode: SessionMode
    public var status: SessionStatus
    /// Time of the first event (or the events file name's timestamp), RFC 3339 UTC with milliseconds.
    public var startedAt: String
    public var lastEventAt: String?
    /// Number of events (well-formed lines) in the run file.
    public var eventCount: Int
    /// First line of the start event's payload.
    public var taskName: String?
    /// Directory of the workspace that holds the run, relative to its root (`.` for the root itself).
    public var workspace: String
    /// The run file, relative to its root.
    public var path: String
    /// Process id of the loop when known (lock holder or supervised process).
    public var pid: Int?

    public init(
        id: String, iteration: Int, total: Int?, hat: String?, elapsedSecs: Int, mode: SessionMode,
        status: SessionStatus, startedAt: String, lastEventAt: String?, eventCount: Int, taskName: String?,
        workspace: String, path: String, pid: Int?
    ) {
        self.id = id
        self.iteration = iteration
        self.total = total
        self.hat = hat
        self.elapsedSecs = elapsedSecs
        self.mode = mode
        self.status = status
        self.startedAt = startedAt
        self.lastEventAt = lastEventAt
        self.eventCount = eventCount
        self.taskName = taskName
        self.workspace = workspace
        self.path = path
        self.pid = pid
    }

    enum CodingKeys: String, CodingKey {
        case id, iteration, total, hat, mode, status, workspace, path, pid
        case elapsedSecs = "elapsed_secs"
        case startedAt = "started_at"
        case lastEventAt = "last_event_at"
        case eventCount = "event_count"
        case taskName = "task_name"
    }

    // Optional fields are written as explicit nulls, as the original server did for `hat` and `total`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(iteration, forKey: .iteration)
        try c.encode(total, forKey: .total)
        try c.encode(hat, forKey: .hat)
        try c.encode(elapsedSecs, forKey: .elapsedSecs)
        try c.encode(mode, forKey: .mode)
        try c.encode(status, forKey: .status)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(lastEventAt, forKey: .lastEventAt)
        try c.encode(eventCount, forKey: .eventCount)
        try c.encode(taskName, forKey: .taskName)
        try c.encode(workspace, forKey: .workspace)
        try c.encode(path, forKey: .path)
        try c.encode(pid, forKey: .pid)
    }
}

/// Why and how a run ended, parsed from its `loop.terminate` record.
public struct StopReason: Codable, Hashable, Sendable {
    /// ralph's reason word: completed, max_iterations, max_runtime, max_cost, consecutive_failures, loop_thrashing,
    /// validation_failure, stopped, interrupted, restart_requested — or `exited` when the loop ended without
    /// writing `loop.terminate`.
    public var reason: String
    /// ralph's status sentence, e.g. "All tasks completed successfully."
    public var message: String?
    public var iterations: Int?
    /// Duration as ralph printed it ("21m 0s").
    public var duration: String?
    public var exitCode: Int?
    /// When the run ended.
    public var at: String?

    public init(reason: String, message: String? = nil, iterations: Int? = nil, duration: String? = nil, exitCode: Int? = nil, at: String? = nil) {
        self.reason = reason
        self.message = message
        self.iterations = iterations
        self.duration = duration
        self.exitCode = exitCode
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case reason, message, iterations, duration, at
        case exitCode = "exit_code"
    }
}

/// A change of the hat at work.
public struct HatTransition: Codable, Hashable, Sendable {
    /// The previous hat (nil for the first transition).
    public var from: String?
    public var to: String
    /// The topic that triggered the change.
    public var topic: String
    public var at: String?
    public var iteration: Int
    /// Event id (line number) of the triggering event.
    public var eventId: Int

    public init(from: String?, to: String, topic: String, at: String?, iteration: Int, eventId: Int) {
        self.from = from
        self.to = to
        self.topic = topic
        self.at = at
        self.iteration = iteration
        self.eventId = eventId
    }

    enum CodingKeys: String, CodingKey {
        case from, to, topic, at, iteration
        case eventId = "event_id"
    }
}

/// One check named in a `build.done`/`build.blocked` payload (`tests: pass`).
public struct BackpressureCheck: Codable, Hashable, Sendable {
    public var name: String
    /// What the payload said: `pass`, `fail`, or the word written there.
    public var result: String
    public var passed: Bool

    public init(name: String, result: String, passed: Bool) {
        self.name = name
        self.result = result
        self.passed = passed
    }
}

/// The latest backpressure evidence of a run.
///
/// `tests`, `lint` and `typecheck` are booleans as the RalphMobile client's `BackpressureStatus` decodes them
/// (`null` when the payload did not mention the check).
public struct Backpressure: Codable, Hashable, Sendable {
    public var tests: Bool?
    public var lint: Bool?
    public var typecheck: Bool?
    public var checks: [BackpressureCheck]
    /// `build.done` or `build.blocked`.
    public var topic: String
    public var at: String?
    public var iteration: Int
    public var eventId: Int
    /// ralph's `blocked_count` on the record, when present.
    public var blockedCount: Int?
    /// How many `build.done` and `build.blocked` events the run has had.
    public var doneCount: Int
    public var blockedEvents: Int

    public init(
        tests: Bool?, lint: Bool?, typecheck: Bool?, checks: [BackpressureCheck], topic: String, at: String?, iteration: Int,
        eventId: Int, blockedCount: Int?, doneCount: Int, blockedEvents: Int
    ) {
        self.tests = tests
        self.lint = lint
        self.typecheck = typecheck
        self.checks = checks
        self.topic = topic
        self.at = at
        self.iteration = iteration
        self.eventId = eventId
        self.blockedCount = blockedCount
        self.doneCount = doneCount
        self.blockedEvents = blockedEvents
    }

    enum CodingKeys: String, CodingKey {
        case tests, lint, typecheck, checks, topic, at, iteration
        case eventId = "event_id"
        case blockedCount = "blocked_count"
        case doneCount = "done_count"
        case blockedEvents = "blocked_events"
    }
}

/// One point of the token sparkline.
public struct TokenSample: Codable, Hashable, Sendable {
    public var at: String?
    public var inputTokens: Int
    public var outputTokens: Int
    public var eventId: Int

    public init(at: String?, inputTokens: Int, outputTokens: Int, eventId: Int) {
        self.at = at
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.eventId = eventId
    }

    enum CodingKeys: String, CodingKey {
        case at
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case eventId = "event_id"
    }
}

/// Token usage summed over the events that report it (`usage.input_tokens`, `total_cost_usd`, …).
public struct TokenMetrics: Codable, Hashable, Sendable {
    public var inputTokens: Int
    public var outputTokens: Int
    public var cacheReadTokens: Int
    public var cacheCreationTokens: Int
    public var costUsd: Double?
    /// Number of events that reported usage.
    public var reports: Int
    /// The most recent reports, oldest first (at most 60).
    public var samples: [TokenSample]

    public init(
        inputTokens: Int = 0, outputTokens: Int = 0, cacheReadTokens: Int = 0, cacheCreationTokens: Int = 0, costUsd: Double? = nil,
        reports: Int = 0, samples: [TokenSample] = []
    ) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheReadTokens = cacheReadTokens
        self.cacheCreationTokens = cacheCreationTokens
        self.costUsd = costUsd
        self.reports = reports
        self.samples = samples
    }

    enum CodingKeys: String, CodingKey {
        case reports, samples
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case cacheReadTokens = "cache_read_tokens"
        case cacheCreationTokens = "cache_creation_tokens"
        case costUsd = "cost_usd"
    }
}

/// Aggregate iteration figures for the detail screen.
public struct IterationStats: Codable, Hashable, Sendable {
    /// Number of iterations seen.
    public var count: Int
    public var current: Int
    /// `max_iterations`, when known.
    public var total: Int?
    /// Mean duration of finished iterations.
    public var averageDurationSecs: Double?
    /// Mean duration × remaining iterations, for live runs with a known total.
    public var estimatedRemainingSecs: Double?

    public init(count: Int, current: Int, total: Int?, averageDurationSecs: Double?, estimatedRemainingSecs: Double?) {
        self.count = count
        self.current = current
        self.total = total
        self.averageDurationSecs = averageDurationSecs
        self.estimatedRemainingSecs = estimatedRemainingSecs
    }

    enum CodingKeys: String, CodingKey {
        case count, current, total
        case averageDurationSecs = "average_duration_secs"
        case estimatedRemainingSecs = "estimated_remaining_secs"
    }
}

/// How often a hat was at work.
public struct HatUsage: Codable, Hashable, Sendable {
    public var hat: String
    /// Iterations in which the hat was at work.
    public var iterations: Int
    /// Events published by the hat.
    public var events: Int

    public init(hat: String, iterations: Int, events: Int) {
        self.hat = hat
        self.iterations = iterations
        self.events = events
    }
}

/// A `human.interact` question of a run that has no `human.response` yet.
///
/// Shape of the original `PendingQuestion` (`asked_at`, `timeout_at` strings; `iteration` unsigned).
public struct PendingQuestion: Codable, Hashable, Sendable {
    /// `<session id>-<event id>`, stable across restarts.
    public var id: String
    public var questionText: String
    public var sessionId: String
    public var askedAt: String
    /// When ralph stops waiting: `RObot.timeout_seconds` of the workspace config, or 5 minutes after `asked_at`
    /// (the original server's convention) when the config does not say, with ``timeoutEstimated`` set.
    /// Always present: the RalphMobile client requires it.
    public var timeoutAt: String
    /// True when ``timeoutAt`` is the 5-minute estimate rather than the configured timeout.
    public var timeoutEstimated: Bool
    public var iteration: Int
    public var hat: String?
    /// Event id of the question.
    public var eventId: Int

    public init(
        id: String, questionText: String, sessionId: String, askedAt: String, timeoutAt: String, timeoutEstimated: Bool, iteration: Int,
        hat: String?, eventId: Int
    ) {
        self.id = id
        self.questionText = questionText
        self.sessionId = sessionId
        self.askedAt = askedAt
        self.timeoutAt = timeoutAt
        self.timeoutEstimated = timeoutEstimated
        self.iteration = iteration
        self.hat = hat
        self.eventId = eventId
    }

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat
        case questionText = "question_text"
        case sessionId = "session_id"
        case askedAt = "asked_at"
        case timeoutAt = "timeout_at"
        case timeoutEstimated = "timeout_estimated"
        case eventId = "event_id"
    }
}

/// Everything a session detail screen needs in one call: `GET /api/sessions/{id}`.
public struct SessionDetail: Codable, Hashable, Sendable {
    /// The list/status fields.
    public var session: Session
    public var stopReason: StopReason?
    public var hatFlow: [HatTransition]
    /// Total number of hat changes (``hatFlow`` keeps the latest 200).
    public var hatTransitions: Int
    public var hatUsage: [HatUsage]
    public var iterationStats: IterationStats
    public var backpressure: Backpressure?
    public var tokens: TokenMetrics?
    /// The latest events carrying a `tool` field, newest last (at most 20).
    public var recentToolCalls: [JSONValue]
    /// The latest events as the stream sends them, newest last (at most 20).
    public var recentEvents: [JSONValue]
    public var pendingQuestion: PendingQuestion?
    /// Lines of the run file (ids run from 1 to this).
    public var lineCount: Int
    /// Lines that are not events (invalid JSON, no topic, too long); blank lines are not counted.
    public var malformedLines: Int

    public init(
        session: Session, stopReason: StopReason?, hatFlow: [HatTransition], hatTransitions: Int, hatUsage: [HatUsage],
        iterationStats: IterationStats, backpressure: Backpressure?, tokens: TokenMetrics?, recentToolCalls: [JSONValue],
        recentEvents: [JSONValue], pendingQuestion: PendingQuestion?, lineCount: Int, malformedLines: Int
    ) {
        self.session = session
        self.stopReason = stopReason
        self.hatFlow = hatFlow
        self.hatTransitions = hatTransitions
        self.hatUsage = hatUsage
        self.iterationStats = iterationStats
        self.backpressure = backpressure
        self.tokens = tokens
        self.recentToolCalls = recentToolCalls
        self.recentEvents = recentEvents
        self.pendingQuestion = pendingQuestion
        self.lineCount = lineCount
        self.malformedLines = malformedLines
    }

    enum CodingKeys: String, CodingKey {
        case backpressure, tokens
        case stopReason = "stop_reason"
        case hatFlow = "hat_flow"
        case hatTransitions = "hat_transitions"
        case hatUsage = "hat_usage"
        case iterationStats = "iteration_stats"
        case recentToolCalls = "recent_tool_calls"
        case recentEvents = "recent_events"
        case pendingQuestion = "pending_question"
        case lineCount = "line_count"
        case malformedLines = "malformed_lines"
    }

    // The detail is the session object with more fields: flatten `session` into the top level.
    public init(from decoder: any Decoder) throws {
        session = try Session(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        stopReason = try c.decodeIfPresent(StopReason.self, forKey: .stopReason)
        hatFlow = try c.decode([HatTransition].self, forKey: .hatFlow)
        hatTransitions = try c.decode(Int.self, forKey: .hatTransitions)
        hatUsage = try c.decode([HatUsage].self, forKey: .hatUsage)
        iterationStats = try c.decode(IterationStats.self, forKey: .iterationStats)
        backpressure = try c.decodeIfPresent(Backpressure.self, forKey: .backpressure)
        tokens = try c.decodeIfPresent(TokenMetrics.self, forKey: .tokens)
        recentToolCalls = try c.decode([JSONValue].self, forKey: .recentToolCalls)
        recentEvents = try c.decode([JSONValue].self, forKey: .recentEvents)
        pendingQuestion = try c.decodeIfPresent(PendingQuestion.self, forKey: .pendingQuestion)
        lineCount = try c.decode(Int.self, forKey: .lineCount)
        malformedLines = try c.decode(Int.self, forKey: .malformedLines)
    }

    public func encode(to encoder: any Encoder) throws {
        try session.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stopReason, forKey: .stopReason)
        try c.encode(hatFlow, forKey: .hatFlow)
        try c.encode(hatTransitions, forKey: .hatTransitions)
        try c.encode(hatUsage, forKey: .hatUsage)
        try c.encode(iterationStats, forKey: .iterationStats)
        try c.encode(backpressure, forKey: .backpressure)
        try c.encode(tokens, forKey: .tokens)
        try c.encode(recentToolCalls, forKey: .recentToolCalls)
        try c.encode(recentEvents, forKey: .recentEvents)
        try c.encode(pendingQuestion, forKey: .pendingQuestion)
        try c.encode(lineCount, forKey: .lineCount)
        try c.encode(malformedLines, forKey: .malformedLines)
    }
}

/// One iteration of a run: `GET /api/sessions/{id}/iterations` item.
public struct IterationItem: Codable, Hashable, Sendable {
    public var number: Int
    public var hat: String?
    public var startedAt: String
    /// Seconds from the iteration's start (the previous iteration's last record) to its own last record.
    public var durationSecs: Int?
    /// Events recorded during the iteration.
    public var eventCount: Int

    public init(number: Int, hat: String?, startedAt: String, durationSecs: Int?, eventCount: Int) {
        self.number = number
        self.hat = hat
        self.startedAt = startedAt
        self.durationSecs = durationSecs
        self.eventCount = eventCount
    }

    enum CodingKeys: String, CodingKey {
        case number, hat
        case startedAt = "started_at"
        case durationSecs = "duration_secs"
        case eventCount = "event_count"
    }
}

/// `GET /api/sessions/{id}/iterations`.
public struct IterationsResponse: Codable, Hashable, Sendable {
    public var iterations: [IterationItem]
    public var total: Int

    public init(iterations: [IterationItem], total: Int) {
        self.iterations = iterations
        self.total = total
    }
}

/// `GET /api/sessions/{id}/scratchpad`.
public struct ScratchpadResponse: Codable, Hashable, Sendable {
    public var content: String
    /// File modification time; null when the file does not exist.
    public var updatedAt: String?
    /// The scratchpad file, relative to the run's root.
    public var path: String

    public init(content: String, updatedAt: String?, path: String) {
        self.content = content
        self.updatedAt = updatedAt
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case content, path
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(content, forKey: .content)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(path, forKey: .path)
    }
}
