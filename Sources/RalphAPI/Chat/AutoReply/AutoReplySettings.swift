/// Auto-reply: a loop on the server that answers the agent's replies with a next prompt until a stop criterion is met,
/// so a conversation keeps going while the phone sleeps (`design/CHAT.md`, Auto-reply).

/// How the loop decides to stop. One canonical spelling on the wire; the app we replace also wrote `smartStop`,
/// `timed`/`timeBased`, `message_count`/`messageBased` and `untilCompletion`, which are accepted on input.
public enum AutoReplyMode: String, Codable, Hashable, Sendable, CaseIterable {
    /// Stop when the completion confidence reaches `min_confidence`.
    case smartStop = "smart_stop"
    /// Stop only on an explicit completion signal (`LOOP_COMPLETE`, "task complete"); limits still apply.
    case untilCompletion = "until_completion"
    /// Stop after `max_minutes` (1 min – 8 h).
    case timeBased = "time_based"
    /// Stop after `max_messages` auto-replies (1 – 100).
    case messageBased = "message_based"
    /// The first met of time, messages and completion.
    case hybrid

    /// Every spelling accepted on input, mapped to its mode.
    public static let aliases: [String: AutoReplyMode] = [
        "smart_stop": .smartStop, "smartStop": .smartStop, "smart-stop": .smartStop,
        "until_completion": .untilCompletion, "untilCompletion": .untilCompletion,
        "time_based": .timeBased, "timeBased": .timeBased, "timed": .timeBased,
        "message_based": .messageBased, "messageBased": .messageBased, "message_count": .messageBased, "messageCount": .messageBased,
        "hybrid": .hybrid,
    ]

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let mode = Self.aliases[raw] else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "unknown mode '\(raw.prefix(40))'; use one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            )
        }
        self = mode
    }
}

/// Where the next prompt comes from.
public struct NextPrompt: Codable, Hashable, Sendable {
    public enum Strategy: String, Codable, Hashable, Sendable {
        /// Always `text`.
        case fixed
        /// The judge writes it (falls back to `text` when it cannot).
        case judge
    }

    public var strategy: Strategy
    public var text: String?

    public init(strategy: Strategy = .fixed, text: String? = nil) {
        self.strategy = strategy
        self.text = text
    }

    /// `strategy` defaults to `fixed`, so `{"text": "…"}` is enough.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        strategy = try c.decodeIfPresent(Strategy.self, forKey: .strategy) ?? .fixed
        text = try c.decodeIfPresent(String.self, forKey: .text)
    }

    enum CodingKeys: String, CodingKey { case strategy, text }

    public static let defaultText =
        "Continue with the task. If everything is finished and verified, say TASK COMPLETE. If you are blocked and need a person, say NEED HUMAN INTERVENTION and why."
}

/// An OpenAI-compatible endpoint that judges a reply (and may write the next prompt). Off unless set.
public struct JudgeSettings: Codable, Hashable, Sendable {
    /// e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended.
    public var baseUrl: String
    public var model: String
    /// The name of an environment variable of the server holding the API key (the key itself is never stored).
    public var apiKeyRef: String?
    /// Seconds before the rules are used instead (default 20).
    public var timeoutSecs: Double?

    public init(baseUrl: String, model: String, apiKeyRef: String? = nil, timeoutSecs: Double? = nil) {
        self.baseUrl = baseUrl
        self.model = model
        self.apiKeyRef = apiKeyRef
        self.timeoutSecs = timeoutSecs
    }

    enum CodingKeys: String, CodingKey {
        case model
        case baseUrl = "base_url"
        case apiKeyRef = "api_key_ref"
        case timeoutSecs = "timeout_secs"
    }
}

/// The settings of a conversation's auto-reply loop.
public struct AutoReplySettings: Codable, Hashable, Sendable {
    public var enabled: Bool
    public var mode: AutoReplyMode
    /// Safety limit on cycles in every mode (1 – 500).
    public var maxIterations: Int
    /// `time_based` and `hybrid` (1 – 480).
    public var maxMinutes: Int?
    /// `message_based` and `hybrid` (1 – 100).
    public var maxMessages: Int?
    /// 0 – 1: `smart_stop` stops at or above it.
    public var minConfidence: Double
    /// Stop when a turn ends in an error.
    public var stopOnError: Bool
    /// Each next prompt waits for a person's go (`resume`) before it is sent.
    public var requireConfirmation: Bool
    /// A person's own message while the loop runs is sent and the loop goes on; when false it pauses the loop.
    public var allowOverride: Bool
    /// Pause on replies that need a person (credentials, destructive confirmation, repeated fatal errors).
    public var showstopperDetection: Bool
    public var nextPrompt: NextPrompt
    public var judge: JudgeSettings?

    public init(
        enabled: Bool = true, mode: AutoReplyMode = .smartStop, maxIterations: Int = 20, maxMinutes: Int? = nil, maxMessages: Int? = nil,
        minConfidence: Double = 0.8, stopOnError: Bool = true, requireConfirmation: Bool = false, allowOverride: Bool = true,
        showstopperDetection: Bool = true, nextPrompt: NextPrompt = NextPrompt(), judge: JudgeSettings? = nil
    ) {
        self.enabled = enabled
        self.mode = mode
        self.maxIterations = maxIterations
        self.maxMinutes = maxMinutes
        self.maxMessages = maxMessages
        self.minConfidence = minConfidence
        self.stopOnError = stopOnError
        self.requireConfirmation = requireConfirmation
        self.allowOverride = allowOverride
        self.showstopperDetection = showstopperDetection
        self.nextPrompt = nextPrompt
        self.judge = judge
    }

    enum CodingKeys: String, CodingKey {
        case enabled, mode, judge
        case maxIterations = "max_iterations"
        case maxMinutes = "max_minutes"
        case maxMessages = "max_messages"
        case minConfidence = "min_confidence"
        case stopOnError = "stop_on_error"
        case requireConfirmation = "require_confirmation"
        case allowOverride = "allow_override"
        case showstopperDetection = "showstopper_detection"
        case nextPrompt = "next_prompt"
    }

    /// Missing fields take their defaults, so a partial JSON (an import, a form) is complete.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = AutoReplySettings()
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? d.enabled
        mode = try c.decodeIfPresent(AutoReplyMode.self, forKey: .mode) ?? d.mode
        maxIterations = try c.decodeIfPresent(Int.self, forKey: .maxIterations) ?? d.maxIterations
        maxMinutes = try c.decodeIfPresent(Int.self, forKey: .maxMinutes)
        maxMessages = try c.decodeIfPresent(Int.self, forKey: .maxMessages)
        minConfidence = try c.decodeIfPresent(Double.self, forKey: .minConfidence) ?? d.minConfidence
        stopOnError = try c.decodeIfPresent(Bool.self, forKey: .stopOnError) ?? d.stopOnError
        requireConfirmation = try c.decodeIfPresent(Bool.self, forKey: .requireConfirmation) ?? d.requireConfirmation
        allowOverride = try c.decodeIfPresent(Bool.self, forKey: .allowOverride) ?? d.allowOverride
        showstopperDetection = try c.decodeIfPresent(Bool.self, forKey: .showstopperDetection) ?? d.showstopperDetection
        nextPrompt = try c.decodeIfPresent(NextPrompt.self, forKey: .nextPrompt) ?? d.nextPrompt
        judge = try c.decodeIfPresent(JudgeSettings.self, forKey: .judge)
    }

    public static let iterationRange = 1...500
    public static let minuteRange = 1...480
    public static let messageRange = 1...100

    /// Everything wrong with these settings, worded for a person; empty when they are valid.
    public var problems: [String] {
        var problems: [String] = []
        if !Self.iterationRange.contains(maxIterations) { problems.append("max_iterations must be from 1 to 500, got \(maxIterations)") }
        if let m = maxMinutes, !Self.minuteRange.contains(m) { problems.append("max_minutes must be from 1 to 480 (8 h), got \(m)") }
        if let m = maxMessages, !Self.messageRange.contains(m) { problems.append("max_messages must be from 1 to 100, got \(m)") }
        if !(0...1).contains(minConfidence) || minConfidence.isNaN { problems.append("min_confidence must be from 0 to 1, got \(minConfidence)") }
        switch mode {
        case .timeBased where maxMinutes == nil: problems.append("time_based needs max_minutes")
        case .messageBased where maxMessages == nil: problems.append("message_based needs max_messages")
        case .hybrid where maxMinutes == nil && maxMessages == nil: problems.append("hybrid needs max_minutes or max_messages")
        default: break
        }
        if let text = nextPrompt.text {
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { problems.append("next_prompt.text cannot be empty") }
            if text.utf8.count > 10_000 { problems.append("next_prompt.text is longer than 10000 bytes") }
        }
        if nextPrompt.strategy == .judge && judge == nil { problems.append("next_prompt.strategy judge needs a judge") }
        if let judge {
            let url = judge.baseUrl.lowercased()
            if !(url.hasPrefix("http://") || url.hasPrefix("https://")) { problems.append("judge.base_url must be an http(s) URL") }
            if judge.model.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("judge.model cannot be empty") }
            if let t = judge.timeoutSecs, !(1...120).contains(t) { problems.append("judge.timeout_secs must be from 1 to 120") }
            if let ref = judge.apiKeyRef, ref.isEmpty || !ref.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                problems.append("judge.api_key_ref must be the name of an environment variable")
            }
        }
        return problems
    }

    /// The prompt sent when the rules (not a judge) choose it.
    public var fixedPrompt: String { nextPrompt.text ?? NextPrompt.defaultText }

    /// Named starting points.
    public static let presets: [String: AutoReplySettings] = [
        /// Stops as soon as the agent is fairly sure it is done; pauses on anything risky.
        "careful": AutoReplySettings(mode: .smartStop, maxIterations: 10, minConfidence: 0.7, requireConfirmation: false),
        /// Keeps going until an explicit "task complete", for at most 8 hours and 100 cycles.
        "overnight": AutoReplySettings(mode: .hybrid, maxIterations: 100, maxMinutes: 480, minConfidence: 0.9),
        /// A few cycles, then stop.
        "quick": AutoReplySettings(mode: .messageBased, maxIterations: 5, maxMessages: 5),
        /// Every next prompt waits for a person's go.
        "supervised": AutoReplySettings(mode: .untilCompletion, maxIterations: 50, requireConfirmation: true),
    ]
}

public enum AutoReplyState: String, Codable, Hashable, Sendable {
    case running, paused, stopped
}

/// Why the loop stopped (or paused, for `showstopper`, `approval`, `confirmation`, `override`, `restart`).
public enum AutoReplyReason: String, Codable, Hashable, Sendable {
    case manual
    case completion
    case timeLimit = "time_limit"
    case messageLimit = "message_limit"
    case iterationLimit = "iteration_limit"
    case error
    case showstopper
    case stuck
    case lowConfidence = "low_confidence"
    case approval
    case confirmation
    case override
    case restart
    case deleted
}

/// `GET /api/conversations/{id}/auto-reply`, and the data of the `auto_reply` event.
public struct AutoReplyProgress: Codable, Hashable, Sendable {
    public var conversationId: String
    public var mode: AutoReplyMode
    public var state: AutoReplyState
    public var iterations: Int
    public var maxIterations: Int
    /// Auto-replies sent.
    public var messages: Int
    public var maxMessages: Int?
    public var elapsedSecs: Int
    public var maxMinutes: Int?
    /// Completion confidence of the last reply judged (0 – 1).
    public var confidence: Double?
    public var stopReason: AutoReplyReason?
    public var pauseReason: AutoReplyReason?
    /// Words for a person: what was detected, why it stopped or paused.
    public var detail: String?
    public var startedAt: String?
    public var updatedAt: String
    /// The prompt waiting for confirmation (`require_confirmation`).
    public var pendingPrompt: String?

    public init(
        conversationId: String, mode: AutoReplyMode, state: AutoReplyState, iterations: Int, maxIterations: Int, messages: Int, maxMessages: Int?,
        elapsedSecs: Int, maxMinutes: Int?, confidence: Double?, stopReason: AutoReplyReason?, pauseReason: AutoReplyReason?, detail: String?,
        startedAt: String?, updatedAt: String, pendingPrompt: String?
    ) {
        self.conversationId = conversationId
        self.mode = mode
        self.state = state
        self.iterations = iterations
        self.maxIterations = maxIterations
        self.messages = messages
        self.maxMessages = maxMessages
        self.elapsedSecs = elapsedSecs
        self.maxMinutes = maxMinutes
        self.confidence = confidence
        self.stopReason = stopReason
        self.pauseReason = pauseReason
        self.detail = detail
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.pendingPrompt = pendingPrompt
    }

    enum CodingKeys: String, CodingKey {
        case mode, state, iterations, messages, confidence, detail
        case conversationId = "conversation_id"
        case maxIterations = "max_iterations"
        case maxMessages = "max_messages"
        case elapsedSecs = "elapsed_secs"
        case maxMinutes = "max_minutes"
        case stopReason = "stop_reason"
        case pauseReason = "pause_reason"
        case startedAt = "started_at"
        case updatedAt = "updated_at"
        case pendingPrompt = "pending_prompt"
    }
}

/// `GET/PUT /api/conversations/{id}/auto-reply`: the settings and where the loop is.
public struct AutoReplyStatus: Codable, Hashable, Sendable {
    public var settings: AutoReplySettings
    public var progress: AutoReplyProgress
    public init(settings: AutoReplySettings, progress: AutoReplyProgress) {
        self.settings = settings
        self.progress = progress
    }
}

/// `POST /api/chat/auto-response/start` (alias documented by the app we replace).
public struct AutoResponseStartRequest: Codable, Hashable, Sendable {
    public var sessionId: String
    public var settings: AutoReplySettings?
    public init(sessionId: String, settings: AutoReplySettings?) {
        self.sessionId = sessionId
        self.settings = settings
    }
}

/// `GET /api/chat/{sessionId}/progress` (alias): the documented camelCase shape.
public struct AutoResponseProgressAlias: Codable, Hashable, Sendable {
    public var sessionId: String
    public var autoResponseActive: Bool
    public var isPaused: Bool
    public var iterations: Int
    public var maxIterations: Int
    public var confidence: Double?
    public var mode: AutoReplyMode
    public var startTime: String?
    public var stopReason: AutoReplyReason?

    public init(_ progress: AutoReplyProgress) {
        sessionId = progress.conversationId
        autoResponseActive = progress.state == .running
        isPaused = progress.state == .paused
        iterations = progress.iterations
        maxIterations = progress.maxIterations
        confidence = progress.confidence
        mode = progress.mode
        startTime = progress.startedAt
        stopReason = progress.stopReason
    }
}
