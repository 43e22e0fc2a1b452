import Foundation
import RalphAPI

/// Everything the server knows about a run from its events, folded line by line.
///
/// A value type with no I/O: the tailer feeds it lines in file order, tests feed it arrays. Collections that could
/// grow with the run are capped, so a run of millions of events keeps a small, fixed-size state.
public struct RunState: Sendable {
    /// One iteration as far as the orchestrator's records tell.
    public struct Iteration: Sendable, Hashable {
        public var number: Int
        /// The hat that worked in this iteration (the `hat` of its records).
        public var hat: String?
        /// When it started: the previous orchestrator record (the end of the previous iteration).
        public var startedAt: String?
        public var startDate: Date?
        /// Its last record.
        public var endDate: Date?
        /// Orchestrator records written by its hat (system `loop` records excluded).
        public var eventCount: Int
    }

    public static let hatFlowLimit = 200
    public static let iterationLimit = 10_000
    public static let recentLimit = 20
    public static let tokenSampleLimit = 60

    /// Lines seen, complete ones only (ids run 1…lineCount).
    public private(set) var lineCount = 0
    public private(set) var eventCount = 0
    public private(set) var malformedCount = 0
    /// Iteration of the latest orchestrator record.
    public private(set) var iteration = 0
    /// The hat at work: `triggered` of the latest orchestrator record that names one (else its non-`loop` hat).
    public private(set) var hat: String?
    public private(set) var firstEventAt: String?
    public private(set) var firstEventDate: Date?
    public private(set) var lastEventAt: String?
    public private(set) var lastEventDate: Date?
    /// The start event's payload, first line.
    public private(set) var taskName: String?
    /// Set by `loop.terminate`; cleared if the orchestrator writes again (`ralph run --continue`).
    public private(set) var termination: StopReason?
    public private(set) var terminationEventID: Int?
    public private(set) var hatFlow: [HatTransition] = []
    public private(set) var hatTransitionCount = 0
    public private(set) var iterations: [Iteration] = []
    /// Per hat: iterations worked and records written.
    public private(set) var hatUsage: [String: (iterations: Int, events: Int)] = [:]
    public private(set) var backpressure: Backpressure?
    public private(set) var tokens: TokenMetrics?
    public private(set) var recentToolCalls: [RalphEvent] = []
    public private(set) var recentEvents: [RalphEvent] = []
    /// The latest `human.interact` that ralph may still be waiting on: no `human.response` and no later orchestrator
    /// record after it.
    public private(set) var pendingQuestion: RalphEvent?
    private var lastRecordTs: String?
    private var lastRecordDate: Date?
    private var doneCount = 0
    private var blockedEvents = 0

    public init() {}

    /// Folds one line of the file (in order).
    public mutating func apply(_ line: DecodedLine) {
        lineCount += 1
        switch line {
        case .event(let event): apply(event)
        case .blank: break
        case .malformed: malformedCount += 1
        }
    }

    private mutating func apply(_ event: RalphEvent) {
        eventCount += 1
        let ts = event.ts
        let date = event.date
        if firstEventAt == nil, let ts {
            firstEventAt = ts
            firstEventDate = date
        }
        if let ts {
            lastEventAt = ts
            lastEventDate = date
        }
        if taskName == nil, let text = event.payloadText {
            taskName = Self.firstLine(of: text)
        }
        if event.isOrchestratorRecord {
            // ralph waits for an answer only until it writes its next record.
            if event.topic != "human.interact", event.topic != "human.response" { pendingQuestion = nil }
            applyRecord(event, ts: ts, date: date)
        }
        switch event.topic {
        case "loop.terminate":
            termination = LoopTerminate.parse(event.payloadText, at: ts.flatMap(Timestamp.parse).map(Timestamp.format))
            terminationEventID = event.id
        case "build.done", "build.blocked":
            applyBackpressure(event, ts: ts)
        case "human.interact":
            pendingQuestion = event
        case "human.response":
            pendingQuestion = nil
        default:
            break
        }
        if let report = TokenUsage.report(in: event) { applyTokens(report, event: event, ts: ts) }
        if event.fields["tool"] != nil { Self.push(event, into: &recentToolCalls) }
        Self.push(event, into: &recentEvents)
    }

    private mutating func applyRecord(_ event: RalphEvent, ts: String?, date: Date?) {
        let number = event.iteration ?? 0
        let source = event.hat ?? ""
        if event.topic != "loop.terminate", termination != nil {
            termination = nil
            terminationEventID = nil
        }
        iteration = number
        if number >= 1 {
            // System records (`loop`, e.g. loop.terminate) end an iteration but are not work done in it.
            let work = source != "loop" ? 1 : 0
            if var last = iterations.last, last.number == number {
                last.eventCount += work
                last.endDate = date ?? last.endDate
                if last.hat == nil, source != "loop", !source.isEmpty {
                    last.hat = source
                    hatUsage[source, default: (0, 0)].iterations += 1
                }
                iterations[iterations.count - 1] = last
            } else {
                let hatName = source == "loop" || source.isEmpty ? nil : source
                iterations.append(
                    Iteration(number: number, hat: hatName, startedAt: lastRecordTs ?? ts, startDate: lastRecordDate ?? date, endDate: date, eventCount: work)
                )
                if iterations.count > Self.iterationLimit { iterations.removeFirst(iterations.count - Self.iterationLimit) }
                if let hatName { hatUsage[hatName, default: (0, 0)].iterations += 1 }
            }
        }
        if source != "loop", !source.isEmpty { hatUsage[source, default: (0, 0)].events += 1 }
        let next = event.triggered ?? (source == "loop" || source.isEmpty ? nil : source)
        if let next, next != hat {
            hatFlow.append(
                HatTransition(from: hat, to: next, topic: event.topic, at: ts.flatMap(Timestamp.parse).map(Timestamp.format), iteration: number, eventId: event.id)
            )
            if hatFlow.count > Self.hatFlowLimit { hatFlow.removeFirst(hatFlow.count - Self.hatFlowLimit) }
            hatTransitionCount += 1
            hat = next
        }
        lastRecordTs = ts ?? lastRecordTs
        lastRecordDate = date ?? lastRecordDate
    }

    private mutating func applyBackpressure(_ event: RalphEvent, ts: String?) {
        if event.topic == "build.done" { doneCount += 1 } else { blockedEvents += 1 }
        let checks = BackpressureEvidence.checks(in: event.payloadText ?? "")
        func passed(_ name: String) -> Bool? { checks.first { $0.name == name }?.passed }
        backpressure = Backpressure(
            tests: passed("tests"), lint: passed("lint"), typecheck: passed("typecheck"), checks: checks, topic: event.topic,
            at: ts.flatMap(Timestamp.parse).map(Timestamp.format), iteration: event.iteration ?? iteration, eventId: event.id,
            blockedCount: event.fields["blocked_count"]?.intValue, doneCount: doneCount, blockedEvents: blockedEvents
        )
    }

    private mutating func applyTokens(_ report: TokenUsage.Report, event: RalphEvent, ts: String?) {
        var metrics = tokens ?? TokenMetrics()
        metrics.inputTokens += report.input
        metrics.outputTokens += report.output
        metrics.cacheReadTokens += report.cacheRead
        metrics.cacheCreationTokens += report.cacheCreation
        if let cost = report.costUsd { metrics.costUsd = (metrics.costUsd ?? 0) + cost }
        metrics.reports += 1
        metrics.samples.append(
            TokenSample(at: ts.flatMap(Timestamp.parse).map(Timestamp.format), inputTokens: report.input, outputTokens: report.output, eventId: event.id)
        )
        if metrics.samples.count > Self.tokenSampleLimit { metrics.samples.removeFirst(metrics.samples.count - Self.tokenSampleLimit) }
        tokens = metrics
    }

    private static func push(_ event: RalphEvent, into list: inout [RalphEvent]) {
        list.append(event)
        if list.count > recentLimit { list.removeFirst(list.count - recentLimit) }
    }

    static func firstLine(of text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { return trimmed.count > 200 ? String(trimmed.prefix(199)) + "…" : trimmed }
        }
        return nil
    }

    /// Iteration figures; `total` is the configured maximum when known, `live` whether the loop still runs.
    public func iterationStats(total: Int?, live: Bool) -> IterationStats {
        let durations = iterations.compactMap { it -> Double? in
            guard let s = it.startDate, let e = it.endDate, e >= s else { return nil }
            return e.timeIntervalSince(s)
        }
        let average = durations.isEmpty ? nil : durations.reduce(0, +) / Double(durations.count)
        var remaining: Double?
        if live, let average, let total, total > iteration { remaining = average * Double(total - iteration) }
        return IterationStats(count: iterations.count, current: iteration, total: total, averageDurationSecs: average, estimatedRemainingSecs: remaining)
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
