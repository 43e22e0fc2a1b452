import Foundation
import RalphAPI

/// Section 3: how the hats handed over to each other, newest change first, and how much each hat worked.
public struct HatFlowSection: Sendable, Equatable {
    /// How many changes show while the section is collapsed.
    public static let collapsedCount = 8

    public struct Usage: Sendable, Equatable, Identifiable {
        public var hat: String
        /// `3 it · 12 ev`.
        public var text: String
        public var accessibilityLabel: String
        public var id: String { hat }
    }

    public struct Change: Sendable, Equatable, Identifiable {
        /// The triggering event's id.
        public var id: Int
        /// nil for the first hat of the run.
        public var from: String?
        /// `planner`, or `start` for the first hat.
        public var fromText: String
        public var to: String
        public var topic: String
        /// `build.done · it 3 · 14:02:03`.
        public var detailText: String
        public var accessibilityLabel: String
    }

    public var usage: [Usage]
    /// Newest first; at most ``collapsedCount`` unless expanded.
    public var changes: [Change]
    /// `12 hat changes, newest first`.
    public var summary: String
    /// `Show all 12` or `Show fewer`; nil when everything fits.
    public var toggleLabel: String?
    public var emptyText: String?

    public init(detail: SessionDetail?, expanded: Bool, timeZone: TimeZone = .current) {
        let flow = detail?.hatFlow ?? []
        usage = (detail?.hatUsage ?? []).map {
            Usage(
                hat: $0.hat, text: "\($0.iterations) it · \($0.events) ev",
                accessibilityLabel: "\($0.hat): \(Formatting.count($0.iterations, "iteration")), \(Formatting.count($0.events, "event"))")
        }
        guard !flow.isEmpty else {
            changes = []
            summary = ""
            toggleLabel = nil
            emptyText = "No hat has been at work yet."
            return
        }
        emptyText = nil
        let total = max(detail?.hatTransitions ?? flow.count, flow.count)
        summary = Formatting.count(total, "hat change") + ", newest first"
        let shown = expanded ? flow : Array(flow.suffix(Self.collapsedCount))
        changes = shown.reversed().map { t in
            let time = Formatting.clockTime(t.at, timeZone: timeZone)
            return Change(
                id: t.eventId, from: t.from, fromText: t.from ?? "start", to: t.to, topic: t.topic,
                detailText: "\(t.topic) · it \(t.iteration) · \(time)",
                accessibilityLabel: "\(t.from ?? "start") to \(t.to), on \(t.topic), iteration \(t.iteration), at \(time)")
        }
        toggleLabel = flow.count > Self.collapsedCount ? (expanded ? "Show fewer" : "Show all \(flow.count)") : nil
    }
}
