import RalphAPI
import RalphMobileKit

/// What a badge or a status line means, so a view picks its colour (`success` is the theme's success colour, …).
public enum BadgeTone: String, Sendable, Equatable, CaseIterable {
    case success, warning, danger, info, neutral
}

/// A small labelled badge: a run's mode or status.
public struct SessionBadge: Sendable, Equatable {
    public var text: String
    public var tone: BadgeTone
    /// What VoiceOver reads.
    public var accessibilityLabel: String

    public init(text: String, tone: BadgeTone, accessibilityLabel: String) {
        self.text = text
        self.tone = tone
        self.accessibilityLabel = accessibilityLabel
    }

    /// The mode badge: `live` (success), `paused` (warning), `complete` (neutral), `unreachable` (danger: its host is
    /// offline in a cluster); another word the server may add is shown as it is (info).
    public static func mode(_ mode: SessionMode) -> SessionBadge {
        switch mode {
        case .live: SessionBadge(text: "live", tone: .success, accessibilityLabel: "Live")
        case .paused: SessionBadge(text: "paused", tone: .warning, accessibilityLabel: "Paused")
        case .suspended: SessionBadge(text: "suspended", tone: .warning, accessibilityLabel: "Suspended by a hook")
        case .complete: SessionBadge(text: "complete", tone: .neutral, accessibilityLabel: "Complete")
        case .unreachable: SessionBadge(text: "unreachable", tone: .danger, accessibilityLabel: "Unreachable: its host is offline")
        default: SessionBadge(text: mode.rawValue, tone: .info, accessibilityLabel: "Mode \(mode.rawValue)")
        }
    }

    /// The badge of the hat at work in the hats reference.
    public static let atWork = SessionBadge(text: "at work", tone: .success, accessibilityLabel: "at work")

    /// The status badge, only when it says more than the mode: `live` + `running` and `paused` + `paused` say nothing
    /// new, so they have none.
    public static func status(_ status: SessionStatus, mode: SessionMode) -> SessionBadge? {
        if status.rawValue.isEmpty || status.rawValue == mode.rawValue { return nil }
        if mode == .live && status == .running { return nil }
        if mode == .suspended && status == .suspended { return nil }
        let tone: BadgeTone =
            switch status {
            case .completed: .success
            case .failed: .danger
            case .stopped: .warning
            case .starting, .running: .info
            default: .neutral
            }
        return SessionBadge(text: status.rawValue, tone: tone, accessibilityLabel: "Status \(status.rawValue)")
    }
}

extension Session {
    /// A run that is going on: live, paused, suspended by a hook, or started by the server and not yet writing events.
    /// A run whose host is offline is not: what it does is not known.
    public var isActive: Bool { !isUnreachable && (mode == .live || mode == .paused || mode == .suspended || status == .starting) }
}
