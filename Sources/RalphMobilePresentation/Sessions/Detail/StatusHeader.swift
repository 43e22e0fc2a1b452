import Foundation
import RalphAPI
import RalphMobileKit

/// Section 1 of the detail screen: what the run is and where it stands.
public struct StatusHeader: Sendable, Equatable {
    /// The task, or `Session 3fa2c901` when the run has none.
    public var title: String
    /// The id's first 8 characters; ``fullID`` is what "Copy id" copies.
    public var id8: String
    public var fullID: String
    public var mode: SessionBadge
    public var status: SessionBadge?
    /// `Ended: completed — All tasks completed successfully.` for a finished run with a stop reason.
    public var endedText: String?
    /// `3 / 10`.
    public var iterationText: String
    public var hat: String?
    /// `builder`, or `none yet`.
    public var hatText: String
    /// `5m 3s`, counting on while the run is live.
    public var elapsedText: String
    /// `Feb 5, 08:09 · 3h ago`.
    public var startedText: String
    /// `12s ago · 1,234 events`.
    public var lastEventText: String
    /// `workspace root · pid 4242`, or the workspace directory.
    public var workspaceText: String
    /// `alpha`, `alpha · offline`: the host that runs it, in a cluster; nil on a server on its own.
    public var hostText: String?
    /// `Host alpha is offline: what this run does now is not known until it is back.`; nil for a reachable run.
    public var unreachableText: String?

    /// - Parameters:
    ///   - elapsedSeconds: the elapsed time to show (the screen model counts it on between refreshes).
    public init(session: Session, stopReason: StopReason?, elapsedSeconds: Double, now: Date = Date(), timeZone: TimeZone = .current) {
        let task = session.taskName.map { Formatting.oneLine($0, max: 200) } ?? ""
        title = task.isEmpty ? "Session \(Formatting.id8(session.id))" : task
        id8 = Formatting.id8(session.id)
        fullID = session.id
        mode = .mode(session.mode)
        status = .status(session.status, mode: session.mode)
        if let stopReason, !session.isActive {
            var text = "Ended: \(stopReason.reason)"
            if let message = stopReason.message, !message.isEmpty { text += " — \(message)" }
            if let at = stopReason.at { text += " · \(Formatting.dateTime(at, now: now, timeZone: timeZone))" }
            endedText = text
        } else {
            endedText = nil
        }
        iterationText = Formatting.iteration(session.iteration, of: session.total)
        hat = session.hat.flatMap { $0.isEmpty ? nil : $0 }
        hatText = hat ?? "none yet"
        elapsedText = Formatting.duration(seconds: elapsedSeconds)
        startedText = Formatting.dateTime(session.startedAt, now: now, timeZone: timeZone) + " · " + Formatting.relativeTime(session.startedAt, now: now)
        lastEventText = Formatting.relativeTime(session.lastEventAt, now: now) + " · " + Formatting.count(session.eventCount, "event")
        let place = session.workspace.isEmpty || session.workspace == "." ? "workspace root" : session.workspace
        workspaceText = place + (session.pid.map { " · pid \($0)" } ?? "")
        hostText = session.host.map { $0 + (session.isUnreachable ? " · offline" : "") }
        unreachableText = HostWords.unreachable(session)
    }

    /// The rows of the header's key–value list, in order.
    public var rows: [SectionStat] {
        [
            SectionStat("Id", id8, accessibilityLabel: "Id \(id8)"), SectionStat("Iteration", iterationText), SectionStat("Hat", hatText, hat: hat),
            SectionStat("Elapsed", elapsedText), SectionStat("Started", startedText), SectionStat("Last event", lastEventText),
            SectionStat("Workspace", workspaceText),
        ] + (hostText.map { [SectionStat("Host", $0)] } ?? [])
    }
}

/// One labelled figure of a section (`Input  12.3k`).
public struct SectionStat: Sendable, Equatable, Identifiable {
    public var label: String
    public var value: String
    /// What VoiceOver reads (the value in full: `12,345 input tokens`).
    public var accessibilityLabel: String
    /// Set when the value is a hat: drawn as the hat's badge, in its colour.
    public var hat: String?
    public var id: String { label }

    public init(_ label: String, _ value: String, accessibilityLabel: String? = nil, hat: String? = nil) {
        self.label = label
        self.value = value
        self.accessibilityLabel = accessibilityLabel ?? "\(label): \(value)"
        self.hat = hat
    }
}
