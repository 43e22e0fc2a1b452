import Foundation
import RalphAPI
import RalphMobileKit

/// Guidance sent to the run with ralph's acknowledgements, agent waves, and the RObot check-in (ralph 2.9–2.10):
/// the detail screen's "Guidance & waves" section.
public struct SignalsSection: Sendable, Equatable {
    /// One guidance message: what was asked and where it stands.
    public struct GuidanceRow: Sendable, Equatable, Identifiable {
        /// The guidance line's event id.
        public var id: Int
        public var text: String
        public var isPending: Bool
        /// `Pending` or `Acknowledged`.
        public var stateText: String
        /// What ralph said it will do, once acknowledged.
        public var ackText: String?
        /// `14:02:03`.
        public var sentText: String
        public var accessibilityLabel: String
    }

    /// One agent wave.
    public struct WaveRow: Sendable, Equatable, Identifiable {
        public var id: String
        /// `Wave w-0a1b2c3d: 2 of 3 workers so far`.
        public var title: String
        public var hats: [String]
        /// Between 0 and 1 (nil when the total is unknown).
        public var progress: Double?
        /// `iteration 4 · events #20–#22`.
        public var detailText: String
    }

    /// Newest first (the latest 10).
    public var guidance: [GuidanceRow]
    /// "1 guidance message waits …", nil when none was sent.
    public var guidanceSummary: String?
    /// Newest first (the latest 10).
    public var waves: [WaveRow]
    /// `RObot check-in: iteration 7 · …`, while the run checks in.
    public var checkinText: String?
    /// True when there is nothing to show (the section hides).
    public var isEmpty: Bool { guidance.isEmpty && waves.isEmpty && checkinText == nil }

    public static let limit = 10

    public init(detail: SessionDetail?, timeZone: TimeZone = .current) {
        let items = detail?.guidance ?? []
        guidance = items.suffix(Self.limit).reversed().map { item in
            let pending = item.state == .pending
            let ack = item.state == .acknowledged ? item.ack.flatMap { $0.isEmpty ? nil : $0 } : nil
            let state = pending ? "Pending" : item.state == .acknowledged ? "Acknowledged" : item.state.rawValue
            return GuidanceRow(
                id: item.eventId, text: item.text, isPending: pending, stateText: state, ackText: ack,
                sentText: Formatting.clockTime(item.sentAt, timeZone: timeZone),
                accessibilityLabel: "Guidance: \(item.text). \(state)" + (ack.map { ". ralph: \($0)" } ?? "")
            )
        }
        guidanceSummary = SessionSignals.guidanceSummary(items)
        waves = (detail?.waves ?? []).suffix(Self.limit).reversed().map { wave in
            WaveRow(
                id: wave.id, title: SessionSignals.waveTitle(wave), hats: wave.hats,
                progress: wave.total > 0 ? min(1, Double(wave.done) / Double(wave.total)) : nil,
                detailText: (wave.iteration.map { "iteration \($0) · " } ?? "") + "events #\(wave.firstEventId)–#\(wave.lastEventId)"
            )
        }
        checkinText = detail?.checkin.map(SessionSignals.checkinLine)
    }
}
