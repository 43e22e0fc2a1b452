import Foundation
import RalphAPI
import RalphMobileKit

/// One row of the sessions list, ready to lay out: every text is formatted, nothing is left for the view to decide.
public struct SessionRow: Sendable, Equatable, Identifiable {
    /// The full session id (navigation and hiding use it).
    public var id: String
    /// The id's first 8 characters: the row's icon text.
    public var iconText: String
    /// The task (first line of the prompt), or `(no task)`.
    public var title: String
    /// `3 / 10`, or `3` when the total is unknown.
    public var iterationText: String
    /// The hat at work (its colour: `ThemeColor.hat(name)`), nil before the first one.
    public var hat: String?
    /// `builder`, or `no hat yet`.
    public var hatText: String
    public var mode: SessionBadge
    /// Only when the status says more than the mode.
    public var status: SessionBadge?
    /// `Feb 5, 08:09`.
    public var startedText: String
    /// `3h ago`.
    public var startedRelative: String
    /// `12s ago`, or `—` when the run has no event yet.
    public var lastEventRelative: String
    /// `workspace root`, or the workspace directory relative to its root.
    public var workspaceText: String
    /// The host that runs it, in a cluster; nil on a server on its own (no host label then).
    public var hostText: String?
    /// Its host is offline: drawn with the `unreachable` badge and ``unreachableText``, never as active.
    public var isUnreachable: Bool
    /// `Host alpha is offline: what this run does now is not known until it is back.`; nil for a reachable run.
    public var unreachableText: String?
    /// Live, paused, suspended by a hook (or starting): drawn as active.
    public var isActive: Bool
    /// Hidden on this device (shown only with "show hidden").
    public var isHidden: Bool
    /// Who holds the run and any stop asked, in words ("Suspended by hook ci-gate: tests failed · stopping at the end
    /// of this iteration"); nil when neither.
    public var controlText: String?
    /// Everything above in one sentence for VoiceOver.
    public var accessibilityLabel: String

    /// The row of `session` at `now` (relative times) in `timeZone`.
    public init(_ session: Session, isHidden: Bool = false, now: Date = Date(), timeZone: TimeZone = .current) {
        id = session.id
        iconText = Formatting.id8(session.id)
        let task = session.taskName.map { Formatting.oneLine($0, max: 120) } ?? ""
        title = task.isEmpty ? "(no task)" : task
        iterationText = Formatting.iteration(session.iteration, of: session.total)
        hat = session.hat.flatMap { $0.isEmpty ? nil : $0 }
        hatText = hat ?? "no hat yet"
        mode = .mode(session.mode)
        status = .status(session.status, mode: session.mode)
        startedText = Formatting.dateTime(session.startedAt, now: now, timeZone: timeZone)
        startedRelative = Formatting.relativeTime(session.startedAt, now: now)
        lastEventRelative = Formatting.relativeTime(session.lastEventAt, now: now)
        workspaceText = session.workspace.isEmpty || session.workspace == "." ? "workspace root" : session.workspace
        hostText = session.host.flatMap { $0.isEmpty ? nil : $0 }
        isUnreachable = session.isUnreachable
        unreachableText = HostWords.unreachable(session)
        isActive = session.isActive
        self.isHidden = isHidden
        let control = [ControlWords.hold(session), ControlWords.stop(session)].compactMap { $0 }
        controlText = control.isEmpty ? nil : control.joined(separator: " · ")
        var parts = [title, mode.accessibilityLabel]
        if let status { parts.append(status.accessibilityLabel) }
        if let hostText { parts.append("on host \(hostText)") }
        if let unreachableText { parts.append(unreachableText) }
        parts += control
        parts.append("iteration " + (session.total.map { "\(session.iteration) of \($0)" } ?? String(session.iteration)))
        parts.append(hat.map { "hat \($0)" } ?? "no hat yet")
        parts.append("started \(startedRelative)")
        if session.lastEventAt != nil { parts.append("last event \(lastEventRelative)") }
        parts.append("id \(iconText)")
        if isHidden { parts.append("hidden") }
        accessibilityLabel = parts.joined(separator: ", ")
    }
}

/// Which runs the list shows. A run whose host is offline is neither live nor done (what it does is not known): only
/// `all` shows it.
public enum SessionsFilter: String, Sendable, CaseIterable, Identifiable {
    case all, live, done

    public var id: String { rawValue }

    public var label: String {
        switch self {
        case .all: "All"
        case .live: "Live"
        case .done: "Done"
        }
    }

    public func includes(_ session: Session) -> Bool {
        switch self {
        case .all: true
        case .live: session.isActive
        case .done: !session.isActive && !session.isUnreachable
        }
    }
}
