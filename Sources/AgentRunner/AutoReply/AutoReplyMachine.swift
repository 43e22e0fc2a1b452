import Foundation
import RalphAPI

/// The auto-reply loop of one conversation as a value (`design/CHAT.md`, Auto-reply): every input (a control, a turn
/// that ended, a judge's answer, an approval, a restart) goes through ``handle(_:)``, which returns the ``Action``s
/// the server carries out. No I/O, no clock: dates are passed in.
///
/// Persistence: the machine is `Codable` as one JSON object with snake_case keys (`conversation_id`, `settings`,
/// `state`, `iterations`, `messages`, `confidence`, `stop_reason`, `pause_reason`, `detail`, `pending_prompt`,
/// `recent_replies`, `judging_reply`, `judge_asked_at`, `started_at`, `ended_at`, `updated_at`, `version`). Dates are
/// **Unix seconds as JSON numbers** (exact round trip); the progress shows them as RFC 3339 strings. After a restart
/// the server decodes it and sends ``Input/restarted(now:)``.
public struct AutoReplyMachine: Sendable, Hashable, Codable {
    public static let keptReplies = 5
    public static let defaultJudgeTimeout: TimeInterval = 20
    /// `until_completion` accepts a judge's confidence at or above this as completion.
    public static let judgeCompletionConfidence = 0.95

    public let conversationID: String
    public private(set) var settings: AutoReplySettings
    public private(set) var state: AutoReplyState = .stopped
    public private(set) var iterations = 0
    /// Auto-replies sent since the start.
    public private(set) var messages = 0
    /// The completion confidence of the last reply decided on.
    public private(set) var confidence: Double?
    public private(set) var stopReason: AutoReplyReason?
    public private(set) var pauseReason: AutoReplyReason?
    public private(set) var detail: String?
    /// A prompt waiting for a person's go (`require_confirmation`); sent on resume.
    public private(set) var pendingPrompt: String?
    /// The last ``keptReplies`` replies of this run, oldest first.
    public private(set) var recentReplies: [String] = []
    /// The reply a judgement is awaited for (the rules use it if the judge fails).
    public private(set) var judgingReply: String?
    var judgeAskedAt: Date?
    public private(set) var startedAt: Date?
    /// When it stopped: elapsed time is frozen there.
    public private(set) var endedAt: Date?
    public private(set) var updatedAt: Date?

    public var isAwaitingJudgement: Bool { judgingReply != nil }

    public init(conversationID: String, settings: AutoReplySettings) {
        self.conversationID = conversationID
        self.settings = settings
    }

    // MARK: - Progress

    public func elapsed(now: Date) -> TimeInterval {
        guard let startedAt else { return 0 }
        let end = state == .stopped ? (endedAt ?? now) : now
        return max(0, end.timeIntervalSince(startedAt))
    }

    public func progress(now: Date) -> AutoReplyProgress {
        AutoReplyProgress(
            conversationId: conversationID, mode: settings.mode, state: state, iterations: iterations, maxIterations: settings.maxIterations,
            messages: messages, maxMessages: settings.maxMessages, elapsedSecs: Int(elapsed(now: now)), maxMinutes: settings.maxMinutes,
            confidence: confidence, stopReason: stopReason, pauseReason: pauseReason, detail: detail, startedAt: startedAt.map(Timestamp.format),
            updatedAt: Timestamp.format(updatedAt ?? now), pendingPrompt: pendingPrompt
        )
    }

    // MARK: - Inputs

    public mutating func handle(_ input: Input) throws(Refusal) -> [Action] {
        switch input {
        case .start(let now, let idle): return try start(now: now, idle: idle)
        case .pause(let now):
            guard state == .running else { throw .notRunning }
            return pause(.manual, detail: "paused by a person", now: now)
        case .resume(let now, let idle): return try resume(now: now, idle: idle)
        case .stop(let now):
            guard state != .stopped else { throw .alreadyStopped }
            return stop(.manual, detail: "stopped by a person", now: now)
        case .updateSettings(let new, let now):
            guard new.problems.isEmpty else { throw .invalidSettings(new.problems) }
            settings = new
            if !new.enabled && state != .stopped { return stop(.manual, detail: "auto-reply was disabled", now: now) }
            return changed(now: now)
        case .observed(let observation): return observe(observation)
        }
    }

    /// An ``Observation``: what the conversation did. Never refused (a loop not running ignores what does not concern it).
    public mutating func observe(_ observation: Observation) -> [Action] {
        switch observation {
        case .turnEnded(let reply, let failed, let error, let now): return turnEnded(reply: reply, failed: failed, error: error, now: now)
        case .judged(let confidence, let prompt, let now): return judged(confidence: confidence, nextPrompt: prompt, now: now)
        case .approvalPending(let now):
            guard state == .running else { return [] }
            return pause(.approval, detail: "waiting for an approval", now: now)
        case .approvalsResolved(let now):
            guard state == .paused, pauseReason == .approval else { return [] }
            state = .running
            pauseReason = nil
            detail = nil
            return changed(now: now)
        case .manualMessage(let now):
            guard state == .running, !settings.allowOverride else { return [] }
            return pause(.override, detail: "a person sent a message; resume to let the loop go on", now: now)
        case .restarted(let now):
            let wasJudging = judgingReply != nil
            judgingReply = nil
            judgeAskedAt = nil
            switch state {
            case .running: return pause(.restart, detail: "the server restarted; resume to continue", now: now)
            case .paused: return wasJudging ? changed(now: now) : []
            case .stopped: return []
            }
        case .tick(let now):
            guard state == .running, let reply = judgingReply, let asked = judgeAskedAt else { return [] }
            let timeout = settings.judge?.timeoutSecs ?? Self.defaultJudgeTimeout
            guard now.timeIntervalSince(asked) >= timeout else { return [] }
            judgingReply = nil
            judgeAskedAt = nil
            return decide(reply: reply, judge: nil, judgePrompt: nil, now: now)
        }
    }

    // MARK: - Steps

    private mutating func start(now: Date, idle: Bool) throws(Refusal) -> [Action] {
        guard settings.problems.isEmpty else { throw .invalidSettings(settings.problems) }
        guard settings.enabled else { throw .disabled }
        guard state == .stopped else { throw .alreadyRunning }
        state = .running
        iterations = 0
        messages = 0
        confidence = nil
        stopReason = nil
        pauseReason = nil
        detail = nil
        pendingPrompt = nil
        recentReplies = []
        judgingReply = nil
        judgeAskedAt = nil
        startedAt = now
        endedAt = nil
        guard idle else { return changed(now: now) }
        return next(prompt: settings.fixedPrompt, now: now)
    }

    private mutating func resume(now: Date, idle: Bool) throws(Refusal) -> [Action] {
        guard state == .paused else { throw .notPaused }
        state = .running
        pauseReason = nil
        detail = nil
        if let prompt = pendingPrompt {
            pendingPrompt = nil
            return send(prompt, now: now)
        }
        if idle { return send(settings.fixedPrompt, now: now) }
        return changed(now: now)
    }

    private mutating func turnEnded(reply: String, failed: Bool, error: String?, now: Date) -> [Action] {
        guard state == .running else { return [] }
        iterations += 1
        let previous = recentReplies
        recentReplies.append(reply)
        if recentReplies.count > Self.keptReplies { recentReplies.removeFirst(recentReplies.count - Self.keptReplies) }

        if failed && settings.stopOnError {
            return stop(.error, detail: "the turn ended in an error" + (error.map { ": \($0.prefix(200))" } ?? ""), now: now, notice: true)
        }
        if settings.showstopperDetection {
            let text = [reply, error ?? ""].filter { !$0.isEmpty }.joined(separator: "\n")
            if let reason = ShowstopperDetector.evaluate(text, previous: previous) {
                return pause(.showstopper, detail: reason, now: now, notice: true)
            }
        }
        if StuckDetector.isStuck(recentReplies) {
            return stop(.stuck, detail: "the last replies are nearly identical", now: now, notice: true)
        }
        if judgingReply != nil {
            // A judgement is already awaited (e.g. for a person's own turn): it decides, on the newest reply.
            judgingReply = reply
            return changed(now: now)
        }
        if settings.judge != nil {
            judgingReply = reply
            judgeAskedAt = now
            return changed(now: now) + [.judge(reply: reply)]
        }
        return decide(reply: reply, judge: nil, judgePrompt: nil, now: now)
    }

    private mutating func judged(confidence judge: Double?, nextPrompt: String?, now: Date) -> [Action] {
        guard let reply = judgingReply else { return [] }
        judgingReply = nil
        judgeAskedAt = nil
        let judge = judge.map { min(1, max(0, $0)) }
        guard state == .running else {
            // Paused meanwhile: keep what the judge said; the next turn end (or resume) goes on.
            if let judge { confidence = judge }
            return changed(now: now)
        }
        return decide(reply: reply, judge: judge, judgePrompt: nextPrompt, now: now)
    }

    /// Completion, then limits, then the next prompt.
    private mutating func decide(reply: String, judge: Double?, judgePrompt: String?, now: Date) -> [Action] {
        let rules = CompletionDetector.evaluate(reply)
        let value = judge ?? rules.confidence
        confidence = value
        let complete: Bool
        switch settings.mode {
        case .smartStop, .hybrid: complete = rules.explicit || value >= settings.minConfidence
        case .untilCompletion: complete = rules.explicit || (judge ?? 0) >= Self.judgeCompletionConfidence
        case .timeBased, .messageBased: complete = rules.explicit
        }
        if complete {
            let why = judge.map { "the judge is \(Self.percent($0)) sure the task is complete" }
                ?? "completion detected (\(rules.rule ?? "rules"), confidence \(Self.percent(rules.confidence)))"
            return stop(.completion, detail: why, now: now, notice: true)
        }
        if iterations >= settings.maxIterations {
            return stop(.iterationLimit, detail: "reached max_iterations (\(settings.maxIterations))", now: now, notice: true)
        }
        if settings.mode == .messageBased || settings.mode == .hybrid, let max = settings.maxMessages, messages >= max {
            return stop(.messageLimit, detail: "sent max_messages (\(max)) auto-replies", now: now, notice: true)
        }
        if settings.mode == .timeBased || settings.mode == .hybrid, let minutes = settings.maxMinutes, elapsed(now: now) >= Double(minutes) * 60 {
            return stop(.timeLimit, detail: "reached max_minutes (\(minutes))", now: now, notice: true)
        }
        let prompt: String
        if settings.nextPrompt.strategy == .judge, let p = judgePrompt, !p.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            prompt = p
        } else {
            prompt = settings.fixedPrompt
        }
        return next(prompt: prompt, now: now)
    }

    /// Sends `prompt`, or holds it for a person's go under `require_confirmation`.
    private mutating func next(prompt: String, now: Date) -> [Action] {
        if settings.requireConfirmation {
            pendingPrompt = prompt
            return pause(.confirmation, detail: "the next prompt waits for your go", now: now)
        }
        return send(prompt, now: now)
    }

    private mutating func send(_ prompt: String, now: Date) -> [Action] {
        messages += 1
        return changed(now: now) + [.send(prompt: prompt)]
    }

    private mutating func pause(_ reason: AutoReplyReason, detail: String, now: Date, notice: Bool = false) -> [Action] {
        state = .paused
        pauseReason = reason
        self.detail = detail
        let actions = changed(now: now)
        return notice ? actions + [.notice(progress(now: now))] : actions
    }

    private mutating func stop(_ reason: AutoReplyReason, detail: String, now: Date, notice: Bool = false) -> [Action] {
        state = .stopped
        stopReason = reason
        pauseReason = nil
        self.detail = detail
        pendingPrompt = nil
        judgingReply = nil
        judgeAskedAt = nil
        endedAt = now
        let actions = changed(now: now)
        return notice ? actions + [.notice(progress(now: now))] : actions
    }

    private mutating func changed(now: Date) -> [Action] {
        updatedAt = now
        return [.progress(progress(now: now))]
    }

    static func percent(_ value: Double) -> String { "\(Int((value * 100).rounded()))%" }

    // MARK: - Codable

    public static let version = 1

    enum CodingKeys: String, CodingKey {
        case settings, state, iterations, messages, confidence, detail, version
        case conversationID = "conversation_id"
        case stopReason = "stop_reason"
        case pauseReason = "pause_reason"
        case pendingPrompt = "pending_prompt"
        case recentReplies = "recent_replies"
        case judgingReply = "judging_reply"
        case judgeAskedAt = "judge_asked_at"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func date(_ key: CodingKeys) throws -> Date? { try c.decodeIfPresent(Double.self, forKey: key).map(Date.init(timeIntervalSince1970:)) }
        conversationID = try c.decode(String.self, forKey: .conversationID)
        settings = try c.decode(AutoReplySettings.self, forKey: .settings)
        state = try c.decode(AutoReplyState.self, forKey: .state)
        iterations = try c.decodeIfPresent(Int.self, forKey: .iterations) ?? 0
        messages = try c.decodeIfPresent(Int.self, forKey: .messages) ?? 0
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence)
        stopReason = try c.decodeIfPresent(AutoReplyReason.self, forKey: .stopReason)
        pauseReason = try c.decodeIfPresent(AutoReplyReason.self, forKey: .pauseReason)
        detail = try c.decodeIfPresent(String.self, forKey: .detail)
        pendingPrompt = try c.decodeIfPresent(String.self, forKey: .pendingPrompt)
        recentReplies = try c.decodeIfPresent([String].self, forKey: .recentReplies) ?? []
        judgingReply = try c.decodeIfPresent(String.self, forKey: .judgingReply)
        judgeAskedAt = try date(.judgeAskedAt)
        startedAt = try date(.startedAt)
        endedAt = try date(.endedAt)
        updatedAt = try date(.updatedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.version, forKey: .version)
        try c.encode(conversationID, forKey: .conversationID)
        try c.encode(settings, forKey: .settings)
        try c.encode(state, forKey: .state)
        try c.encode(iterations, forKey: .iterations)
        try c.encode(messages, forKey: .messages)
        try c.encodeIfPresent(confidence, forKey: .confidence)
        try c.encodeIfPresent(stopReason, forKey: .stopReason)
        try c.encodeIfPresent(pauseReason, forKey: .pauseReason)
        try c.encodeIfPresent(detail, forKey: .detail)
        try c.encodeIfPresent(pendingPrompt, forKey: .pendingPrompt)
        try c.encode(recentReplies, forKey: .recentReplies)
        try c.encodeIfPresent(judgingReply, forKey: .judgingReply)
        try c.encodeIfPresent(judgeAskedAt?.timeIntervalSince1970, forKey: .judgeAskedAt)
        try c.encodeIfPresent(startedAt?.timeIntervalSince1970, forKey: .startedAt)
        try c.encodeIfPresent(endedAt?.timeIntervalSince1970, forKey: .endedAt)
        try c.encodeIfPresent(updatedAt?.timeIntervalSince1970, forKey: .updatedAt)
    }
}
