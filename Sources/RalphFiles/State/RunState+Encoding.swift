import Foundation
import RalphAPI

/// The binary form of a fold, for the catalog's on-disk index.
extension RunState {
    /// Version of ``encode(into:)``'s layout; an index written with another one is not read.
    static let encodingVersion = 2

    /// Writes the whole state, for the catalog's on-disk index.
    func encode(into w: inout BinaryWriter) {
        w.write(summary.lineCount)
        w.write(summary.eventCount)
        w.write(summary.malformedCount)
        w.write(summary.iteration)
        w.write(summary.hat)
        w.write(summary.firstEventAt)
        w.write(summary.firstEventDate)
        w.write(summary.lastEventAt)
        w.write(summary.lastEventDate)
        w.write(summary.taskName)
        w.write(summary.termination != nil)
        if let t = summary.termination {
            w.write(t.reason)
            w.write(t.message)
            w.write(t.iterations)
            w.write(t.duration)
            w.write(t.exitCode)
            w.write(t.at)
        }
        w.write(summary.terminationEventID)
        w.write(details.hatFlow.count)
        for h in details.hatFlow {
            w.write(h.from)
            w.write(h.to)
            w.write(h.topic)
            w.write(h.at)
            w.write(h.iteration)
            w.write(h.eventId)
        }
        w.write(details.hatTransitionCount)
        w.write(details.iterations.count)
        for it in details.iterations {
            w.write(it.number)
            w.write(it.hat)
            w.write(it.startedAt)
            w.write(it.startDate)
            w.write(it.endDate)
            w.write(it.eventCount)
        }
        w.write(details.hatUsage.count)
        for name in details.hatUsage.keys.sorted() {
            w.write(name)
            w.write(details.hatUsage[name]!.iterations)
            w.write(details.hatUsage[name]!.events)
        }
        Self.encode(details.backpressureEvent, into: &w)
        w.write(details.backpressureIteration)
        w.write(details.tokens != nil)
        if let t = details.tokens {
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
        w.write(details.recentToolCalls.count)
        for e in details.recentToolCalls { Self.encode(e, into: &w) }
        w.write(details.recentEvents.count)
        for e in details.recentEvents { Self.encode(e, into: &w) }
        Self.encode(summary.pendingQuestion, into: &w)
        w.write(summary.lastRecordTs)
        w.write(summary.lastRecordDate)
        w.write(details.doneCount)
        w.write(details.blockedEvents)
        encodeSignals(into: &w)
    }

    /// Reads what ``encode(into:)`` wrote.
    init(decoding r: inout BinaryReader) throws(BinaryReader.Malformed) {
        self.init()
        summary.lineCount = try r.readInt()
        summary.eventCount = try r.readInt()
        summary.malformedCount = try r.readInt()
        summary.iteration = try r.readInt()
        summary.hat = try r.readOptionalString()
        summary.firstEventAt = try r.readOptionalString()
        summary.firstEventDate = try r.readDate()
        summary.lastEventAt = try r.readOptionalString()
        summary.lastEventDate = try r.readDate()
        summary.taskName = try r.readOptionalString()
        if try r.readBool() {
            summary.termination = StopReason(
                reason: try r.readString(), message: try r.readOptionalString(), iterations: try r.readOptionalInt(),
                duration: try r.readOptionalString(), exitCode: try r.readOptionalInt(), at: try r.readOptionalString()
            )
        }
        summary.terminationEventID = try r.readOptionalInt()
        let flowCount = try r.readCount()
        details.hatFlow.reserveCapacity(flowCount)
        for _ in 0..<flowCount {
            details.hatFlow.append(
                HatTransition(
                    from: try r.readOptionalString(), to: try r.readString(), topic: try r.readString(), at: try r.readOptionalString(),
                    iteration: try r.readInt(), eventId: try r.readInt()
                )
            )
        }
        details.hatTransitionCount = try r.readInt()
        let iterationCount = try r.readCount()
        details.iterations.reserveCapacity(iterationCount)
        for _ in 0..<iterationCount {
            details.iterations.append(
                Iteration(
                    number: try r.readInt(), hat: try r.readOptionalString(), startedAt: try r.readOptionalString(), startDate: try r.readDate(),
                    endDate: try r.readDate(), eventCount: try r.readInt()
                )
            )
        }
        for _ in 0..<(try r.readCount()) {
            let name = try r.readString()
            details.hatUsage[name] = (try r.readInt(), try r.readInt())
        }
        details.backpressureEvent = try Self.decodeEvent(&r)
        details.backpressureIteration = try r.readInt()
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
            details.tokens = t
        }
        for _ in 0..<(try r.readCount()) {
            guard let e = try Self.decodeEvent(&r) else { throw BinaryReader.Malformed(description: "missing tool call") }
            details.recentToolCalls.append(e)
        }
        for _ in 0..<(try r.readCount()) {
            guard let e = try Self.decodeEvent(&r) else { throw BinaryReader.Malformed(description: "missing event") }
            details.recentEvents.append(e)
        }
        summary.pendingQuestion = try Self.decodeEvent(&r)
        summary.lastRecordTs = try r.readOptionalString()
        summary.lastRecordDate = try r.readDate()
        details.doneCount = try r.readInt()
        details.blockedEvents = try r.readInt()
        try decodeSignals(&r)
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
