import Foundation
import RalphAPI

/// The words every client uses for ralph 2.9–2.10's signals in a session detail: guidance pending → acknowledged,
/// agent waves, RObot check-ins, and a wave line's place in its wave. One place, so the app, the terminal and the
/// tests say the same thing (the web dashboard's `words/signals.js` says it in the same words).
public enum SessionSignals {
    /// Guidance still waiting for ralph's `human.guidance.ack`.
    public static func pendingGuidance(_ detail: SessionDetail) -> [GuidanceItem] { detail.guidance.filter { $0.state == .pending } }

    /// "1 guidance message waits for ralph's acknowledgement; …", "The guidance was acknowledged.", or nil when none
    /// was sent.
    public static func guidanceSummary(_ list: [GuidanceItem]) -> String? {
        guard !list.isEmpty else { return nil }
        let pending = list.filter { $0.state == .pending }.count
        if pending == 0 {
            return list.count == 1 ? "The guidance was acknowledged." : "All \(list.count) guidance messages were acknowledged."
        }
        return "\(pending) guidance \(pending == 1 ? "message waits" : "messages wait") for ralph's acknowledgement; the loop does not complete until it is acknowledged."
    }

    /// A guidance line's state in words: "pending", "acknowledged: <what ralph will do>".
    public static func guidanceState(_ item: GuidanceItem) -> String {
        switch item.state {
        case .pending: "pending"
        case .acknowledged: item.ack.map { $0.isEmpty ? "acknowledged" : "acknowledged: \($0)" } ?? "acknowledged"
        default: item.state.rawValue
        }
    }

    /// "Wave w-0a1b2c3d: 2 of 3 workers so far" (ids over 10 characters shortened).
    public static func waveTitle(_ wave: WaveGroup) -> String {
        let id = wave.id.count > 10 ? String(wave.id.prefix(10)) + "…" : wave.id
        guard wave.total > 0 else { return "Wave \(id): \(wave.done) \(wave.done == 1 ? "worker" : "workers")" }
        return "Wave \(id): \(wave.done) of \(wave.total) workers \(wave.done >= wave.total ? "done" : "so far")"
    }

    /// "wave 2/3" for a line of a wave (its 0-based `wave_index` shown 1-based), nil for other events.
    public static func waveBadge(_ event: WorkflowEvent) -> String? {
        guard let id = event.fields["wave_id"]?.stringValue, !id.isEmpty else { return nil }
        let index = event.fields["wave_index"]?.intValue.map { String($0 + 1) } ?? "?"
        return "wave \(index)" + (event.fields["wave_total"]?.intValue.map { "/\($0)" } ?? "")
    }

    /// "RObot check-in: iteration 7 · hat builder · 840 s in · 2 open / 5 closed tasks · $1.42".
    public static func checkinLine(_ checkin: RobotCheckin) -> String {
        var parts: [String] = []
        if let i = checkin.iteration { parts.append("iteration \(i)") }
        if let hat = checkin.currentHat { parts.append("hat \(hat)") }
        if let s = checkin.elapsedSeconds { parts.append("\(s) s in") }
        if let open = checkin.openTasks { parts.append("\(open) open / \(checkin.closedTasks ?? 0) closed tasks") }
        if let cost = checkin.cumulativeCost { parts.append("$" + String(format: "%.2f", cost)) }
        return "RObot check-in: " + (parts.isEmpty ? "no details" : parts.joined(separator: " · "))
    }
}
