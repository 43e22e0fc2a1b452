/// Auto-reply: a loop on the server that answers the agent's replies with a next prompt until a stop criterion is met,
/// so a conversation keeps going while the phone sleeps (`design/CHAT.md`, Auto-reply).

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
