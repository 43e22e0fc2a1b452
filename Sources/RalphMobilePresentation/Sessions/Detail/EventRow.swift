import Foundation
import RalphAPI
import RalphMobileKit

/// One event as the recent-events and stream sections show it.
public struct EventRow: Sendable, Equatable, Identifiable {
    /// The event's id (its line in the run file).
    public var id: Int
    /// `#12`.
    public var idText: String
    public var topic: String
    public var hat: String?
    /// `→ reviewer` when the event triggered a hat.
    public var triggeredText: String?
    /// `14:02:03`.
    public var timeText: String
    /// The payload on one line (cut), "" when there is none.
    public var preview: String
    /// The whole payload, JSON indented.
    public var payload: String
    /// True when the payload does not fit its preview: the row expands to show it.
    public var isExpandable: Bool
    public var accessibilityLabel: String
    /// `wave 2/3` for a line of an agent wave (ralph ≥ 2.9).
    public var waveText: String?

    /// How many characters the one-line preview keeps.
    public static let previewLength = 90

    public init(_ event: WorkflowEvent, timeZone: TimeZone = .current) {
        id = event.id
        idText = "#\(event.id)"
        topic = event.topic.isEmpty ? "(no topic)" : event.topic
        hat = event.hat.flatMap { $0.isEmpty ? nil : $0 }
        triggeredText = event.triggered.flatMap { $0.isEmpty ? nil : "→ " + $0 }
        timeText = Formatting.clockTime(event.ts, timeZone: timeZone)
        payload = Formatting.payloadText(event)
        preview = Formatting.oneLine(payload, max: Self.previewLength)
        isExpandable = payload.count > Self.previewLength || payload.contains("\n")
        waveText = SessionSignals.waveBadge(event)
        var parts = ["Event \(event.id)", topic]
        if let waveText { parts.append(waveText) }
        if let hat { parts.append("hat \(hat)") }
        if let triggered = event.triggered, !triggered.isEmpty { parts.append("triggered \(triggered)") }
        parts.append("at \(timeText)")
        if !preview.isEmpty { parts.append(preview) }
        accessibilityLabel = parts.joined(separator: ", ")
    }
}

/// Section 7: the latest events of the run as the detail call returned them, newest first.
public struct RecentEventsSection: Sendable, Equatable {
    /// How many recent events show.
    public static let count = 10

    public var rows: [EventRow]
    public var emptyText: String?

    public init(detail: SessionDetail?, timeZone: TimeZone = .current) {
        let events = (detail?.recentEvents ?? []).compactMap(WorkflowEvent.init(json:))
        rows = events.suffix(Self.count).reversed().map { EventRow($0, timeZone: timeZone) }
        emptyText = rows.isEmpty ? "No events yet." : nil
    }
}

/// Section 8: the live event stream, newest first, with its count and connection state.
public struct EventStreamSection: Sendable, Equatable {
    /// How many events the section lays out (the monitor keeps more, for the export).
    public static let shownLimit = 300

    /// The latest ``shownLimit`` events, newest first.
    public var rows: [EventRow]
    /// `128 events received · 2 reconnects · newest first`.
    public var countText: String
    public var connection: ConnectionLine
    /// `Run ended: completed` once the stream's `end` frame came.
    public var endedText: String?
    /// `This run's events file was replaced: showing it again from its first line.` after a reset frame.
    public var resetText: String?
    /// `Waiting for events…` (or `This run has no events.` once it ended).
    public var emptyText: String?

    public init(
        events: [WorkflowEvent], eventCount: Int, connection: ConnectionState, reconnectAttempts: Int, end: StreamEnd?,
        reset: StreamReset?, isActive: Bool, hostOffline: String? = nil, timeZone: TimeZone = .current
    ) {
        rows = events.prefix(Self.shownLimit).map { EventRow($0, timeZone: timeZone) }
        countText = Formatting.count(eventCount, "event") + " received · " + Formatting.count(reconnectAttempts, "reconnect") + " · newest first"
        if events.count > Self.shownLimit { countText += ", the latest \(Self.shownLimit) shown" }
        let reason = end.map { $0.reason ?? $0.status.rawValue }
        self.connection = .stream(state: connection, endedReason: reason, isActive: isActive, hostOffline: hostOffline)
        endedText = reason.map { "Run ended: \($0)" }
        resetText = reset.map { "This run’s events file was replaced: showing it again from its first line (\($0.reason))." }
        if rows.isEmpty {
            emptyText = end != nil || !isActive ? "This run has no events." : "Waiting for events…"
        } else {
            emptyText = nil
        }
    }
}
