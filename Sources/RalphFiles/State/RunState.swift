import Foundation
import RalphAPI

/// A run's events folded line by line: its ``RunSummary`` and its ``RunDetails``, both present.
///
/// A value type with no I/O: the tailer feeds it lines in file order, tests feed it arrays. The catalog keeps the two
/// parts apart in a ``RunSnapshot`` (where the details are optional); this is the whole fold, as folding and the
/// on-disk index need it. Members of either part read through it (`state.lineCount`, `state.hatFlow`).
@dynamicMemberLookup
public struct RunState: Sendable {
    public typealias Iteration = RunDetails.Iteration

    public static let hatFlowLimit = 200
    public static let iterationLimit = 10_000
    public static let recentLimit = 20
    public static let tokenSampleLimit = 60

    public internal(set) var summary = RunSummary()
    public internal(set) var details = RunDetails()

    public init() {}

    public init(summary: RunSummary, details: RunDetails) {
        self.summary = summary
        self.details = details
    }

    public subscript<T>(dynamicMember member: KeyPath<RunSummary, T>) -> T { summary[keyPath: member] }
    public subscript<T>(dynamicMember member: KeyPath<RunDetails, T>) -> T { details[keyPath: member] }

    /// Folds one line of the file (in order).
    public mutating func apply(_ line: DecodedLine) {
        Self.fold(line, summary: &summary, details: &details)
    }

    /// Iteration figures; `total` is the configured maximum when known, `live` whether the loop still runs.
    public func iterationStats(total: Int?, live: Bool) -> IterationStats {
        details.iterationStats(current: summary.iteration, total: total, live: live)
    }

    /// The iterations as the `/iterations` route lists them.
    public func iterationItems() -> [IterationItem] { details.iterationItems() }

    /// Hat usage sorted by hat name.
    public func hatUsageList() -> [HatUsage] { details.hatUsageList() }

    /// Folds one line into a run's two parts, in place (the catalog folds into the parts it publishes).
    static func fold(_ line: DecodedLine, summary: inout RunSummary, details: inout RunDetails) {
        summary.lineCount += 1
        switch line {
        case .event(let event): fold(event, summary: &summary, details: &details)
        case .blank: break
        case .malformed: summary.malformedCount += 1
        }
    }

    private static func fold(_ event: RalphEvent, summary: inout RunSummary, details: inout RunDetails) {
        summary.eventCount += 1
        let ts = event.ts
        let date = event.date
        if summary.firstEventAt == nil, let ts {
            summary.firstEventAt = ts
            summary.firstEventDate = date
        }
        if let ts {
            summary.lastEventAt = ts
            summary.lastEventDate = date
        }
        if summary.taskName == nil, let text = event.payloadText {
            summary.taskName = firstLine(of: text)
        }
        if event.isOrchestratorRecord {
            // ralph waits for an answer only until it writes its next record.
            if event.topic != "human.interact", event.topic != "human.response" { summary.pendingQuestion = nil }
            foldRecord(event, ts: ts, date: date, summary: &summary, details: &details)
        }
        switch event.topic {
        case "loop.terminate":
            summary.termination = LoopTerminate.parse(event.payloadText, at: ts.flatMap(Timestamp.parse).map(Timestamp.format))
            summary.terminationEventID = event.id
        case "build.done", "build.blocked":
            if event.topic == "build.done" { details.doneCount += 1 } else { details.blockedEvents += 1 }
            details.backpressureEvent = event
            details.backpressureIteration = summary.iteration
        case "human.interact":
            summary.pendingQuestion = event
        case "human.response":
            summary.pendingQuestion = nil
        default:
            break
        }
        if let report = TokenUsage.report(in: event) { foldTokens(report, event: event, ts: ts, into: &details) }
        if event.fields["tool"] != nil { push(event, into: &details.recentToolCalls) }
        foldSignals(event, into: &details)
        push(event, into: &details.recentEvents)
    }

    private static func foldRecord(_ event: RalphEvent, ts: String?, date: Date?, summary: inout RunSummary, details: inout RunDetails) {
        let number = event.iteration ?? 0
        let source = event.hat ?? ""
        if event.topic != "loop.terminate", summary.termination != nil {
            summary.termination = nil
            summary.terminationEventID = nil
        }
        summary.iteration = number
        if number >= 1 {
            // System records (`loop`, e.g. loop.terminate) end an iteration but are not work done in it.
            let work = source != "loop" ? 1 : 0
            if var last = details.iterations.last, last.number == number {
                last.eventCount += work
                last.endDate = date ?? last.endDate
                if last.hat == nil, source != "loop", !source.isEmpty {
                    last.hat = source
                    details.hatUsage[source, default: (0, 0)].iterations += 1
                }
                details.iterations[details.iterations.count - 1] = last
            } else {
                let hatName = source == "loop" || source.isEmpty ? nil : source
                // The start as written is kept only when it is not a timestamp (a parsed date says the same, in far less memory).
                let startDate = summary.lastRecordDate ?? date
                details.iterations.append(
                    Iteration(
                        number: number, hat: hatName, startedAt: startDate == nil ? summary.lastRecordTs ?? ts : nil, startDate: startDate,
                        endDate: date, eventCount: work
                    )
                )
                if details.iterations.count > iterationLimit { details.iterations.removeFirst(details.iterations.count - iterationLimit) }
                if let hatName { details.hatUsage[hatName, default: (0, 0)].iterations += 1 }
            }
        }
        if source != "loop", !source.isEmpty { details.hatUsage[source, default: (0, 0)].events += 1 }
        let next = event.triggered ?? (source == "loop" || source.isEmpty ? nil : source)
        if let next, next != summary.hat {
            details.hatFlow.append(
                HatTransition(
                    from: summary.hat, to: next, topic: event.topic, at: ts.flatMap(Timestamp.parse).map(Timestamp.format), iteration: number,
                    eventId: event.id
                )
            )
            if details.hatFlow.count > hatFlowLimit { details.hatFlow.removeFirst(details.hatFlow.count - hatFlowLimit) }
            details.hatTransitionCount += 1
            summary.hat = next
        }
        summary.lastRecordTs = ts ?? summary.lastRecordTs
        summary.lastRecordDate = date ?? summary.lastRecordDate
    }

    private static func foldTokens(_ report: TokenUsage.Report, event: RalphEvent, ts: String?, into details: inout RunDetails) {
        var metrics = details.tokens ?? TokenMetrics()
        metrics.inputTokens += report.input
        metrics.outputTokens += report.output
        metrics.cacheReadTokens += report.cacheRead
        metrics.cacheCreationTokens += report.cacheCreation
        if let cost = report.costUsd { metrics.costUsd = (metrics.costUsd ?? 0) + cost }
        metrics.reports += 1
        metrics.samples.append(
            TokenSample(at: ts.flatMap(Timestamp.parse).map(Timestamp.format), inputTokens: report.input, outputTokens: report.output, eventId: event.id)
        )
        if metrics.samples.count > tokenSampleLimit { metrics.samples.removeFirst(metrics.samples.count - tokenSampleLimit) }
        details.tokens = metrics
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
}
