import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The latest values of the summary, from the few lines the pass pointed at — each rule the fold's
/// (``RunState``), read from its end: the value the fold leaves behind is the one the last line of its kind set.
extension RunFileScan {
    mutating func resolve(_ latest: Latest, fd: Int32) throws(ScanError) {
        var events: [Int: RalphEvent] = [:]
        func event(_ ref: LineRef) throws(ScanError) -> RalphEvent {
            if let known = events[ref.line] { return known }
            guard case .event(let decoded) = try Self.decode(ref, fd: fd) else { throw .inconsistent("line \(ref.line) is no longer an event") }
            events[ref.line] = decoded
            return decoded
        }
        // `lastEventAt`: every event with a timestamp sets it.
        if let ref = latest.timestamped {
            let last = try event(ref)
            guard let ts = last.ts else { throw .inconsistent("line \(ref.line) has no timestamp") }
            summary.lastEventAt = ts
            summary.lastEventDate = last.date
        }
        // `iteration`: every orchestrator record sets it.
        if let ref = latest.record {
            let record = try event(ref)
            guard record.isOrchestratorRecord, let iteration = record.iteration else { throw .inconsistent("line \(ref.line) is not a record") }
            summary.iteration = iteration
        }
        // `hat`: every record that names a hat (its `triggered`, else its own hat unless `loop`) moves it there.
        if let ref = latest.namingHat {
            let record = try event(ref)
            guard record.isOrchestratorRecord, let hat = Self.hatNamed(by: record) else { throw .inconsistent("line \(ref.line) names no hat") }
            summary.hat = hat
        }
        // `termination`: set by `loop.terminate`, cleared by any other record.
        if let ref = latest.ending {
            let last = try event(ref)
            if last.topic == "loop.terminate" {
                summary.termination = LoopTerminate.parse(last.payloadText, at: last.ts.flatMap(Timestamp.parse).map(Timestamp.format))
                summary.terminationEventID = last.id
            } else if !last.isOrchestratorRecord {
                throw .inconsistent("line \(ref.line) neither ends nor resumes the loop")
            }
        }
        // `pendingQuestion`: set by `human.interact`, cleared by `human.response` and by any other record.
        if let ref = latest.asking {
            let last = try event(ref)
            if last.topic == "human.interact" {
                summary.pendingQuestion = last
            } else if last.topic != "human.response", !last.isOrchestratorRecord {
                throw .inconsistent("line \(ref.line) neither asks nor answers")
            }
        }
    }

    /// The hat a record puts to work: its `triggered`, else its own hat unless that is the loop's (nil: none).
    static func hatNamed(by record: RalphEvent) -> String? {
        let source = record.hat ?? ""
        return record.triggered ?? (source == "loop" || source.isEmpty ? nil : source)
    }

    /// Reads one line back and decodes it.
    static func decode(_ ref: LineRef, fd: Int32) throws(ScanError) -> DecodedLine {
        var bytes = [UInt8](repeating: 0, count: ref.count)
        let n = bytes.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: ref.offset) }
        if n < 0 { throw .unreadable(errno: errno) }
        guard n == ref.count else { throw .inconsistent("line \(ref.line) cannot be read back") }
        return EventLineDecoder.decode(bytes, id: ref.line)
    }
}

extension RunSummary {
    /// The fields the session list shows that differ from `other`'s (empty when the list would show the same run). The
    /// catalog checks a fast scan against the fold it adopts with it; the tests, that there is never a difference.
    func listDifferences(from other: RunSummary) -> [String] {
        var names: [String] = []
        func check<T: Equatable>(_ name: String, _ a: T, _ b: T) { if a != b { names.append(name) } }
        check("line_count", lineCount, other.lineCount)
        check("event_count", eventCount, other.eventCount)
        check("malformed_count", malformedCount, other.malformedCount)
        check("iteration", iteration, other.iteration)
        check("hat", hat, other.hat)
        check("first_event_at", firstEventAt, other.firstEventAt)
        check("first_event_date", firstEventDate, other.firstEventDate)
        check("last_event_at", lastEventAt, other.lastEventAt)
        check("last_event_date", lastEventDate, other.lastEventDate)
        check("task_name", taskName, other.taskName)
        check("termination", termination, other.termination)
        check("termination_event_id", terminationEventID, other.terminationEventID)
        check("pending_question", pendingQuestion, other.pendingQuestion)
        return names
    }
}
