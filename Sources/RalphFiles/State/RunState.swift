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
        /// When it started: the previous orchestrator record (the end of the previous iteration). The text as written,
        /// only when it is not a timestamp (else ``startDate``).
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
    /// The latest backpressure evidence: read from the latest `build.done`/`build.blocked` event when asked, so folding
    /// a long run does not parse every build payload it passes.
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
    private var backpressureEvent: RalphEvent?
    /// The run's iteration when ``backpressureEvent`` was folded (for an event that names none).
    private var backpressureIteration = 0
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

    /// False when the details (hat flow, iterations, hat usage, tokens, backpressure, recent events) were dropped from
    /// memory to keep a large workspace small; the catalog reads them back from its index when they are asked for.
    public private(set) var hasDetails = true

    public init() {}

    /// Drops the details, keeping what the session list, status and liveness need. Folding on needs them back.
    mutating func dropDetails() {
        hatFlow = []
        iterations = []
        hatUsage = [:]
        tokens = nil
        backpressureEvent = nil
        recentToolCalls = []
        recentEvents = []
        hasDetails = false
    }

    /// Folds one line of the file (in order).
    public mutating func apply(_ line: DecodedLine) {
        assert(hasDetails, "folding into a run state whose details were dropped")
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
            applyBackpressure(event)
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
                // The start as written is kept only when it is not a timestamp (a parsed date says the same, in far less memory).
                let startDate = lastRecordDate ?? date
                iterations.append(
                    Iteration(
                        number: number, hat: hatName, startedAt: startDate == nil ? lastRecordTs ?? ts : nil, startDate: startDate, endDate: date,
                        eventCount: work
                    )
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

    private mutating func applyBackpressure(_ event: RalphEvent) {
        if event.topic == "build.done" { doneCount += 1 } else { blockedEvents += 1 }
        backpressureEvent = event
        backpressureIteration = iteration
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

// MARK: - Index encoding

extension RunState {
    /// Version of ``encode(into:)``'s layout; an index written with another one is not read.
    static let encodingVersion = 1

    /// Writes the whole state, for the catalog's on-disk index.
    func encode(into w: inout BinaryWriter) {
        assert(hasDetails, "encoding a run state whose details were dropped")
        w.write(lineCount)
        w.write(eventCount)
        w.write(malformedCount)
        w.write(iteration)
        w.write(hat)
        w.write(firstEventAt)
        w.write(firstEventDate)
        w.write(lastEventAt)
        w.write(lastEventDate)
        w.write(taskName)
        w.write(termination != nil)
        if let t = termination {
            w.write(t.reason)
            w.write(t.message)
            w.write(t.iterations)
            w.write(t.duration)
            w.write(t.exitCode)
            w.write(t.at)
        }
        w.write(terminationEventID)
        w.write(hatFlow.count)
        for h in hatFlow {
            w.write(h.from)
            w.write(h.to)
            w.write(h.topic)
            w.write(h.at)
            w.write(h.iteration)
            w.write(h.eventId)
        }
        w.write(hatTransitionCount)
        w.write(iterations.count)
        for it in iterations {
            w.write(it.number)
            w.write(it.hat)
            w.write(it.startedAt)
            w.write(it.startDate)
            w.write(it.endDate)
            w.write(it.eventCount)
        }
        w.write(hatUsage.count)
        for name in hatUsage.keys.sorted() {
            w.write(name)
            w.write(hatUsage[name]!.iterations)
            w.write(hatUsage[name]!.events)
        }
        Self.encode(backpressureEvent, into: &w)
        w.write(backpressureIteration)
        w.write(tokens != nil)
        if let t = tokens {
            w.write(t.inputTokens)
            w.write(t.outputTokens)
            w.write(t.cacheReadTokens)
            w.write(t.cacheCreationTokens)
            w.write(t.costUsd)
            w.write(t.reports)
            w.write(t.samples.count)
            for sample in t.samples {
                w.write(sample.at)
                w.write(sample.inputTokens)
                w.write(sample.outputTokens)
                w.write(sample.eventId)
            }
        }
        w.write(recentToolCalls.count)
        for e in recentToolCalls { Self.encode(e, into: &w) }
        w.write(recentEvents.count)
        for e in recentEvents { Self.encode(e, into: &w) }
        Self.encode(pendingQuestion, into: &w)
        w.write(lastRecordTs)
        w.write(lastRecordDate)
        w.write(doneCount)
        w.write(blockedEvents)
    }

    /// Reads what ``encode(into:)`` wrote.
    init(decoding r: inout BinaryReader) throws(BinaryReader.Malformed) {
        self.init()
        lineCount = try r.readInt()
        eventCount = try r.readInt()
        malformedCount = try r.readInt()
        iteration = try r.readInt()
        hat = try r.readOptionalString()
        firstEventAt = try r.readOptionalString()
        firstEventDate = try r.readDate()
        lastEventAt = try r.readOptionalString()
        lastEventDate = try r.readDate()
        taskName = try r.readOptionalString()
        if try r.readBool() {
            termination = StopReason(
                reason: try r.readString(), message: try r.readOptionalString(), iterations: try r.readOptionalInt(),
                duration: try r.readOptionalString(), exitCode: try r.readOptionalInt(), at: try r.readOptionalString()
            )
        }
        terminationEventID = try r.readOptionalInt()
        let flowCount = try r.readCount()
        hatFlow.reserveCapacity(flowCount)
        for _ in 0..<flowCount {
            hatFlow.append(
                HatTransition(
                    from: try r.readOptionalString(), to: try r.readString(), topic: try r.readString(), at: try r.readOptionalString(),
                    iteration: try r.readInt(), eventId: try r.readInt()
                )
            )
        }
        hatTransitionCount = try r.readInt()
        let iterationCount = try r.readCount()
        iterations.reserveCapacity(iterationCount)
        for _ in 0..<iterationCount {
            iterations.append(
                Iteration(
                    number: try r.readInt(), hat: try r.readOptionalString(), startedAt: try r.readOptionalString(), startDate: try r.readDate(),
                    endDate: try r.readDate(), eventCount: try r.readInt()
                )
            )
        }
        for _ in 0..<(try r.readCount()) {
            let name = try r.readString()
            hatUsage[name] = (try r.readInt(), try r.readInt())
        }
        backpressureEvent = try Self.decodeEvent(&r)
        backpressureIteration = try r.readInt()
        if try r.readBool() {
            var t = TokenMetrics(
                inputTokens: try r.readInt(), outputTokens: try r.readInt(), cacheReadTokens: try r.readInt(),
                cacheCreationTokens: try r.readInt(), costUsd: try r.readOptionalDouble(), reports: try r.readInt()
            )
            for _ in 0..<(try r.readCount()) {
                t.samples.append(
                    TokenSample(at: try r.readOptionalString(), inputTokens: try r.readInt(), outputTokens: try r.readInt(), eventId: try r.readInt())
                )
            }
            tokens = t
        }
        for _ in 0..<(try r.readCount()) {
            guard let e = try Self.decodeEvent(&r) else { throw BinaryReader.Malformed(description: "missing tool call") }
            recentToolCalls.append(e)
        }
        for _ in 0..<(try r.readCount()) {
            guard let e = try Self.decodeEvent(&r) else { throw BinaryReader.Malformed(description: "missing event") }
            recentEvents.append(e)
        }
        pendingQuestion = try Self.decodeEvent(&r)
        lastRecordTs = try r.readOptionalString()
        lastRecordDate = try r.readDate()
        doneCount = try r.readInt()
        blockedEvents = try r.readInt()
    }

    /// An event as its id and its line (re-decoded on load, exactly as the file had it).
    private static func encode(_ event: RalphEvent?, into w: inout BinaryWriter) {
        w.write(event != nil)
        guard let event else { return }
        w.write(event.id)
        w.write(JSONWriter.string(.object(event.fields)))
    }

    private static func decodeEvent(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> RalphEvent? {
        guard try r.readBool() else { return nil }
        let id = try r.readInt()
        let line = try r.readString()
        guard case .event(let event) = EventLineDecoder.decode(line, id: id) else {
            throw BinaryReader.Malformed(description: "an indexed event is not an event line")
        }
        return event
    }
}
