import Foundation
import RalphAPI

/// What only a run's detail view needs: hat flow, iterations, hat usage, tokens, backpressure, recent events.
///
/// A finished run whose index entry is current keeps only its ``RunSummary`` in memory: ``RunSnapshot/details`` is nil
/// and ``RunCatalog/detailedSnapshot(id:)`` reads them back. A separate, optional type, so a reader cannot use details
/// that are not there. Collections that could grow with the run are capped.
public struct RunDetails: Sendable {
    /// One iteration as far as the orchestrator's records tell.
    public struct Iteration: Sendable, Hashable {
        public var number: Int
        /// The hat that worked in this iteration (the `hat` of its records).
        public var hat: String?
        /// When it started: the previous orchestrator record (the end of the previous iteration). The text as written,
        /// only when it is not a timestamp (else ``startDate``).
        public var startedAt: String?
        public var startDate: Date?
        /// Its last record.
        public var endDate: Date?
        /// Orchestrator records written by its hat (system `loop` records excluded).
        public var eventCount: Int
    }

    public internal(set) var hatFlow: [HatTransition] = []
    public internal(set) var hatTransitionCount = 0
    public internal(set) var iterations: [Iteration] = []
    /// Per hat: iterations worked and records written.
    public internal(set) var hatUsage: [String: (iterations: Int, events: Int)] = [:]
    public internal(set) var tokens: TokenMetrics?
    public internal(set) var recentToolCalls: [RalphEvent] = []
    public internal(set) var recentEvents: [RalphEvent] = []
    /// `human.guidance` lines and their acks (see `RunState+Signals.swift`).
    public internal(set) var guidance: [GuidanceItem] = []
    /// Agent waves, by `wave_id` (see `RunState+Signals.swift`).
    public internal(set) var waves: [WaveGroup] = []
    /// The latest `build.done`/`build.blocked` event, parsed only when ``backpressure`` is asked for, so folding a long
    /// run does not parse every build payload it passes.
    var backpressureEvent: RalphEvent?
    /// The run's iteration when ``backpressureEvent`` was folded (for an event that names none).
    var backpressureIteration = 0
    var doneCount = 0
    var blockedEvents = 0

    public init() {}

    /// The latest backpressure evidence.
    public var backpressure: Backpressure? {
        guard let event = backpressureEvent else { return nil }
        let checks = BackpressureEvidence.checks(in: event.payloadText ?? "")
        func passed(_ name: String) -> Bool? { checks.first { $0.name == name }?.passed }
        return Backpressure(
            tests: passed("tests"), lint: passed("lint"), typecheck: passed("typecheck"), checks: checks, topic: event.topic,
            at: event.ts.flatMap(Timestamp.parse).map(Timestamp.format), iteration: event.iteration ?? backpressureIteration,
            eventId: event.id, blockedCount: event.fields["blocked_count"]?.intValue, doneCount: doneCount, blockedEvents: blockedEvents
        )
    }

    /// Iteration figures; `current` is the run's iteration, `total` the configured maximum when known, `live` whether
    /// the loop still runs.
    public func iterationStats(current: Int, total: Int?, live: Bool) -> IterationStats {
        let durations = iterations.compactMap { it -> Double? in
            guard let s = it.startDate, let e = it.endDate, e >= s else { return nil }
            return e.timeIntervalSince(s)
        }
        let average = durations.isEmpty ? nil : durations.reduce(0, +) / Double(durations.count)
        var remaining: Double?
        if live, let average, let total, total > current { remaining = average * Double(total - current) }
        return IterationStats(count: iterations.count, current: current, total: total, averageDurationSecs: average, estimatedRemainingSecs: remaining)
    }

    /// The iterations as the `/iterations` route lists them.
    public func iterationItems() -> [IterationItem] {
        iterations.map { it in
            var duration: Int?
            if let s = it.startDate, let e = it.endDate, e >= s { duration = Int(e.timeIntervalSince(s).rounded()) }
            let started = it.startDate.map(Timestamp.format) ?? it.startedAt ?? ""
            return IterationItem(number: it.number, hat: it.hat, startedAt: started, durationSecs: duration, eventCount: it.eventCount)
        }
    }

    /// Hat usage sorted by hat name.
    public func hatUsageList() -> [HatUsage] {
        hatUsage.keys.sorted().map { HatUsage(hat: $0, iterations: hatUsage[$0]!.iterations, events: hatUsage[$0]!.events) }
    }
}
