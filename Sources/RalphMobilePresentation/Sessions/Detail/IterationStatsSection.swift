import Foundation
import RalphAPI

/// Section 5: iteration figures, and the latest iterations.
public struct IterationStatsSection: Sendable, Equatable {
    /// How many iterations the list shows.
    public static let latestCount = 8

    public struct Row: Sendable, Equatable, Identifiable {
        public var id: Int
        /// `#3`.
        public var numberText: String
        public var hat: String?
        /// `1m 2s · 12 events`.
        public var detailText: String
        public var accessibilityLabel: String
    }

    /// Iterations, Current, Average, Remaining.
    public var stats: [SectionStat]
    /// Newest first.
    public var latest: [Row]
    /// `Loading iterations…`, `No iteration finished yet.`, or nil when ``latest`` has rows.
    public var latestNote: String?

    /// - Parameters:
    ///   - iterations: `GET /api/sessions/{id}/iterations`, nil while it loads.
    public init(stats: IterationStats?, session: Session?, iterations: [IterationItem]?) {
        let s = stats
        let total = s?.total ?? session?.total
        let current = s?.current ?? session?.iteration ?? 0
        let active = session?.isActive ?? false
        let remaining: String
        if let secs = s?.estimatedRemainingSecs {
            remaining = "≈ " + Formatting.duration(seconds: secs)
        } else {
            remaining = active ? "unknown" : Formatting.missing
        }
        self.stats = [
            SectionStat("Iterations", Formatting.number(s?.count ?? 0)),
            SectionStat("Current", Formatting.iteration(current, of: total), accessibilityLabel: "Current: \(current)" + (total.map { " of \($0)" } ?? "")),
            SectionStat("Average", Formatting.duration(seconds: s?.averageDurationSecs), accessibilityLabel: "Average iteration: \(Formatting.duration(seconds: s?.averageDurationSecs))"),
            SectionStat("Remaining", remaining, accessibilityLabel: "Time remaining: " + remaining.replacingOccurrences(of: "≈ ", with: "about ")),
        ]
        guard let iterations else {
            latest = []
            latestNote = "Loading iterations…"
            return
        }
        latest = iterations.suffix(Self.latestCount).reversed().map { item in
            let text = Formatting.duration(seconds: item.durationSecs) + " · " + Formatting.count(item.eventCount, "event")
            return Row(
                id: item.number, numberText: "#\(item.number)", hat: item.hat, detailText: text,
                accessibilityLabel: "Iteration \(item.number)" + (item.hat.map { ", \($0)" } ?? "") + ", \(text.replacingOccurrences(of: " · ", with: ", "))")
        }
        latestNote = latest.isEmpty ? "No iteration finished yet." : nil
    }
}
