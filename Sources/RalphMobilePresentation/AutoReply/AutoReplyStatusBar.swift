import Foundation
import RalphAPI
import RalphMobileKit

/// A control of the auto-reply loop, offered only in the states where the server accepts it.
public enum AutoReplyControl: Hashable, Sendable, Identifiable {
    case start
    case pause
    /// `sendsPrompt`: a prompt waits for confirmation, and resuming sends it.
    case resume(sendsPrompt: Bool)
    case stop

    public var id: String {
        switch self {
        case .start: "start"
        case .pause: "pause"
        case .resume: "resume"
        case .stop: "stop"
        }
    }

    public var label: String {
        switch self {
        case .start: "Start"
        case .pause: "Pause"
        case .resume(let sends): sends ? "Resume (send it)" : "Resume"
        case .stop: "Stop"
        }
    }

    public var accessibilityLabel: String { label + " auto-reply" }
    public var isDestructive: Bool { self == .stop }

    /// Stop asks first; the others act at once.
    public var confirmation: (title: String, message: String, confirm: String)? {
        guard self == .stop else { return nil }
        return ("Stop auto-reply?", "The loop stops; the running turn (if any) goes on. You can start it again later.", "Stop")
    }

    /// The controls the server accepts in `state` (start only where asked for: the settings screen).
    public static func available(for progress: AutoReplyProgress?, includingStart: Bool) -> [AutoReplyControl] {
        switch progress?.state ?? .stopped {
        case .stopped: includingStart ? [.start] : []
        case .running: [.pause, .stop]
        case .paused: [.resume(sendsPrompt: progress?.pendingPrompt != nil), .stop]
        }
    }
}

/// The auto-reply line of a chat: mode, progress towards the nearest limit, confidence, why it paused or stopped, and
/// pause / resume / stop for operators.
public struct AutoReplyStatusBar: Hashable, Sendable {
    public let progress: AutoReplyProgress?
    /// 0 – 1: the most advanced of cycles, messages and minutes.
    public let fraction: Double?
    public let canControl: Bool
    /// Offer Start too (the settings screen; a chat's bar only pauses, resumes and stops).
    public let includesStart: Bool

    public init(progress: AutoReplyProgress?, fraction: Double?, canControl: Bool, includesStart: Bool = false) {
        self.progress = progress
        self.fraction = fraction
        self.canControl = canControl
        self.includesStart = includesStart
    }

    /// From the SDK's model (its progress and its `fractionDone`).
    @MainActor
    public init(_ model: AutoReplyModel, canControl: Bool, includesStart: Bool = false) {
        self.init(progress: model.progress, fraction: model.fractionDone, canControl: canControl, includesStart: includesStart)
    }

    /// Shown once a loop has run in this conversation (a loop never started is "off" and takes no room).
    public var isVisible: Bool {
        guard let progress else { return false }
        return progress.state != .stopped || progress.startedAt != nil
    }

    public var modeTitle: String { progress.map { AutoReplyWords.title($0.mode) } ?? "Auto-reply" }

    /// `Running`, `Paused`, `Stopped`, or `Off` before any loop.
    public var stateText: String {
        guard let progress, isVisible else { return "Off" }
        switch progress.state {
        case .running: return "Running"
        case .paused: return "Paused"
        case .stopped: return "Stopped"
        }
    }

    public var tone: ChatTone {
        switch progress?.state {
        case .running?: .active
        case .paused?: .attention
        default: .neutral
        }
    }

    /// `cycle 3/20 · 2/10 sent`.
    public var countsText: String? {
        guard let p = progress, isVisible else { return nil }
        return "cycle \(p.iterations)/\(p.maxIterations) · \(p.messages)" + (p.maxMessages.map { "/\($0)" } ?? "") + " sent"
    }

    /// Seconds since the loop started: the last report's count, plus the time since it while running.
    public func elapsedSeconds(now: Date) -> Int {
        guard let p = progress else { return 0 }
        guard p.state == .running, let updated = Timestamp.parse(p.updatedAt) else { return p.elapsedSecs }
        return p.elapsedSecs + max(0, Int(now.timeIntervalSince(updated)))
    }

    /// `1m 05s of 2h 00m`.
    public func timeText(now: Date) -> String? {
        guard let p = progress, isVisible else { return nil }
        return ChatFormat.duration(elapsedSeconds(now: now)) + (p.maxMinutes.map { " of " + ChatFormat.duration($0 * 60) } ?? "")
    }

    /// `confidence 42%`.
    public var confidenceText: String? { progress?.confidence.map { "confidence " + AutoReplyWords.percent($0) } }

    /// `Paused: needs a person — asks for a password`, `Stopped: message limit reached`.
    public var reasonText: String? {
        guard let p = progress, isVisible else { return nil }
        let reason: AutoReplyReason?
        switch p.state {
        case .running: return nil
        case .paused: reason = p.pauseReason
        case .stopped: reason = p.stopReason
        }
        let words = reason.map(AutoReplyWords.reason)
        var line = (p.state == .paused ? "Paused" : "Stopped") + (words.map { ": " + $0 } ?? "")
        if let detail = p.detail, !detail.isEmpty, detail != words, reason != .manual, reason != .confirmation { line += " — " + detail }
        return line
    }

    /// The prompt waiting for a person's go.
    public var pendingPrompt: String? { progress?.pendingPrompt }

    public var controls: [AutoReplyControl] { canControl ? AutoReplyControl.available(for: progress, includingStart: includesStart) : [] }

    /// Everything in one sentence, for VoiceOver.
    public func accessibilityLabel(now: Date) -> String {
        ["Auto-reply, \(modeTitle), \(stateText)", countsText, timeText(now: now), confidenceText, reasonText].compactMap { $0 }.joined(separator: ", ")
    }
}
