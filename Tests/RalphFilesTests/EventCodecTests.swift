import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

/// The example lines of reference §5.4, verbatim.
enum ReferenceLines {
    static let all: [String] = [
        #"{"ts":"2026-02-05T08:09:13.890130179+00:00","iteration":0,"hat":"loop","topic":"analysis.start","triggered":"planner","payload":"Review and improve all existing BDD specs across two projects:\n\n1. …"}"#,
        #"{"payload":"Analyzed all 4 BDD specs. Key findings: (1) bdd-preset.feature - no BDD preset …","topic":"analysis.done","ts":"2026-02-05T08:11:47.583798402+00:00"}"#,
        #"{"payload":"Rewrote all 4 BDD specs. bdd-preset: 14 scenarios (was 4), …","topic":"spec.draft_ready","ts":"2026-02-05T08:15:04.261208118+00:00"}"#,
        #"{"payload":"3 factual errors, 1 vague assertion. Fixes: …","topic":"spec.revision_needed","ts":"2026-02-05T08:17:10.160808331+00:00"}"#,
        #"{"payload":"4 factual fixes applied: (1) hats init exit code 0 not non-zero, …","topic":"spec.draft_ready","ts":"2026-02-05T08:18:22.668620490+00:00"}"#,
        #"{"ts":"2026-01-26T10:00:00.000Z","iteration":5,"hat":"builder","topic":"build.done","triggered":"plan.start","payload":"done"}"#,
        #"{"ts":"2024-01-15T10:23:45Z","iteration":1,"hat":"loop","topic":"task.start","triggered":"planner","payload":"..."}"#,
        #"{"topic":"build.task","payload":"...","ts":"2024-01-15T10:24:12Z"}"#,
        #"{"topic":"design.drafted","payload":"Ready for review","ts":"2024-01-01T00:00:00Z"}"#,
        #"{"payload":{"status":"success"},"topic":"build.done","ts":"2026-02-05T09:00:00+00:00"}"#,
        #"{"payload":"Focus on error handling","topic":"human.guidance","ts":"2026-02-05T09:01:00.123456+00:00"}"#,
        ###"{"ts":"2026-02-05T09:30:00.500+00:00","iteration":12,"hat":"loop","topic":"loop.terminate","payload":"## Reason\ncompleted\n\n## Status\nAll tasks completed successfully.\n\n## Summary\n- Iterations: 12\n- Duration: 21m 0s\n- Exit code: 0"}"###,
    ]
}

/// The event of a decoded line, or a recorded issue.
func event(_ line: DecodedLine, sourceLocation: SourceLocation = #_sourceLocation) -> RalphEvent? {
    guard case .event(let event) = line else {
        Issue.record("expected an event, got \(line)", sourceLocation: sourceLocation)
        return nil
    }
    return event
}

func isMalformed(_ line: DecodedLine) -> Bool {
    if case .malformed = line { return true }
    return false
}

@Suite("Event line codec")
struct EventCodecTests {
    @Test("every example line of the reference decodes as an event", arguments: Array(ReferenceLines.all.indices))
    func referenceLinesDecode(_ index: Int) throws {
        let line = ReferenceLines.all[index]
        let decoded = try #require(event(EventLineDecoder.decode(line, id: index + 1)))
        #expect(decoded.id == index + 1)
        #expect(!decoded.topic.isEmpty)
        #expect(decoded.ts != nil)
        #expect(decoded.date != nil, "ts \(decoded.ts ?? "nil") did not parse")
        #expect(decoded.payloadText != nil)
    }

    @Test("an orchestrator record exposes its fields with their written values")
    func orchestratorRecord() throws {
        let e = try #require(event(EventLineDecoder.decode(ReferenceLines.all[0], id: 1)))
        #expect(e.topic == "analysis.start")
        #expect(e.ts == "2026-02-05T08:09:13.890130179+00:00")
        #expect(e.iteration == 0)
        #expect(e.hat == "loop")
        #expect(e.triggered == "planner")
        #expect(e.payloadText == "Review and improve all existing BDD specs across two projects:\n\n1. …")
        #expect(e.isOrchestratorRecord)
        #expect(e.fields.keys == ["ts", "iteration", "hat", "topic", "triggered", "payload"])
        let date = try #require(e.date)
        #expect(abs(date.timeIntervalSince1970 - 1_770_278_953.890130179) < 1e-6)
    }

    @Test("a ralph emit line has no iteration or hat and is not an orchestrator record")
    func emitLine() throws {
        let e = try #require(event(EventLineDecoder.decode(ReferenceLines.all[1], id: 2)))
        #expect(e.topic == "analysis.done")
        #expect(e.iteration == nil)
        #expect(e.hat == nil)
        #expect(e.triggered == nil)
        #expect(!e.isOrchestratorRecord)
        #expect(e.fields.keys == ["payload", "topic", "ts"])
    }

    @Test("Z, millisecond and microsecond timestamps of the reference lines parse to the right instant")
    func timestampsOfReferenceLines() throws {
        let millisZ = try #require(event(EventLineDecoder.decode(ReferenceLines.all[5], id: 6)))
        #expect(millisZ.date == Date(timeIntervalSince1970: 1_769_421_600))  // 2026-01-26T10:00:00Z
        let wholeZ = try #require(event(EventLineDecoder.decode(ReferenceLines.all[6], id: 7)))
        #expect(wholeZ.date == Date(timeIntervalSince1970: 1_705_314_225))  // 2024-01-15T10:23:45Z
        let micros = try #require(event(EventLineDecoder.decode(ReferenceLines.all[10], id: 11)))
        let microsDate = try #require(micros.date)
        #expect(abs(microsDate.timeIntervalSince1970 - 1_770_282_060.123456) < 1e-6)  // 2026-02-05T09:01:00.123456Z
    }

    @Test("an object payload is exposed as compact JSON text and kept as JSON")
    func objectPayload() throws {
        let e = try #require(event(EventLineDecoder.decode(ReferenceLines.all[9], id: 10)))
        #expect(e.payloadText == #"{"status":"success"}"#)
        #expect(e.payload == ["status": "success"])
        let spaced = try #require(event(EventLineDecoder.decode(#"{"topic":"t","payload":{ "b" : [1, 2.5, null], "a" : {"x": true} }}"#, id: 1)))
        #expect(spaced.payloadText == #"{"b":[1,2.5,null],"a":{"x":true}}"#)
    }

    @Test("other payload kinds: null and missing give no text, numbers and arrays give JSON text")
    func otherPayloads() throws {
        let null = try #require(event(EventLineDecoder.decode(#"{"topic":"t","payload":null}"#, id: 1)))
        #expect(null.payloadText == nil)
        #expect(null.payload == .null)
        let missing = try #require(event(EventLineDecoder.decode(#"{"topic":"t"}"#, id: 1)))
        #expect(missing.payloadText == nil)
        #expect(missing.payload == nil)
        let number = try #require(event(EventLineDecoder.decode(#"{"topic":"t","payload":42}"#, id: 1)))
        #expect(number.payloadText == "42")
        let array = try #require(event(EventLineDecoder.decode(#"{"topic":"t","payload":[1,"a"]}"#, id: 1)))
        #expect(array.payloadText == #"[1,"a"]"#)
        let empty = try #require(event(EventLineDecoder.decode(#"{"topic":"t","payload":""}"#, id: 1)))
        #expect(empty.payloadText == "")
    }

    @Test("isOrchestratorRecord needs both iteration and hat")
    func orchestratorRecordNeedsBoth() throws {
        let onlyIteration = try #require(event(EventLineDecoder.decode(#"{"topic":"t","iteration":3}"#, id: 1)))
        #expect(!onlyIteration.isOrchestratorRecord)
        let onlyHat = try #require(event(EventLineDecoder.decode(#"{"topic":"t","hat":"builder"}"#, id: 1)))
        #expect(!onlyHat.isOrchestratorRecord)
        let both = try #require(event(EventLineDecoder.decode(#"{"topic":"t","iteration":3,"hat":"builder"}"#, id: 1)))
        #expect(both.isOrchestratorRecord)
        #expect(both.iteration == 3)
    }

    @Test("an empty triggered is treated as absent")
    func emptyTriggered() throws {
        let e = try #require(event(EventLineDecoder.decode(#"{"topic":"t","iteration":1,"hat":"loop","triggered":""}"#, id: 1)))
        #expect(e.triggered == nil)
    }

    @Test("blank and whitespace-only lines are blank", arguments: ["", " ", "   ", "\t", "\r", " \t\r ", "\n"])
    func blankLines(_ line: String) {
        #expect(EventLineDecoder.decode(line, id: 1) == .blank)
    }

    @Test("a CRLF line ending and surrounding whitespace are tolerated")
    func crlf() throws {
        let e = try #require(event(EventLineDecoder.decode(ReferenceLines.all[8] + "\r", id: 9)))
        #expect(e.topic == "design.drafted")
        #expect(e.payloadText == "Ready for review")
        let padded = try #require(event(EventLineDecoder.decode("  \t" + ReferenceLines.all[8] + " \r", id: 9)))
        #expect(padded.topic == "design.drafted")
    }

    @Test("lines that are not events are malformed", arguments: [
        #"{"topic":"#,  // truncated JSON
        #"{"topic":"a"} x"#,  // trailing garbage
        "not json at all",
        #"[{"topic":"a"}]"#,  // an array
        #""topic""#,  // a string
        "null",
        "42",
        #"{"payload":"x","ts":"2024-01-01T00:00:00Z"}"#,  // no topic
        #"{"topic":5}"#,  // numeric topic
        #"{"topic":""}"#,  // empty topic
        #"{"topic":null}"#,
        #"{"topic":["a"]}"#,
        #"{"topic":{"name":"a"}}"#,
    ])
    func malformedLines(_ line: String) {
        #expect(isMalformed(EventLineDecoder.decode(line, id: 1)), "\(line) was not malformed")
    }

    @Test("the same line decodes the same from a string, bytes and a buffer")
    func decodeOverloads() throws {
        let line = ReferenceLines.all[7]
        let fromString = EventLineDecoder.decode(line, id: 8)
        let fromBytes = EventLineDecoder.decode(Array(line.utf8), id: 8)
        let fromBuffer = Array(line.utf8).withUnsafeBufferPointer { EventLineDecoder.decode($0, id: 8) }
        #expect(fromString == fromBytes)
        #expect(fromBytes == fromBuffer)
        #expect(try #require(event(fromString)).topic == "build.task")
    }

    @Test("invalid UTF-8 inside a string still decodes, repaired with U+FFFD")
    func invalidUTF8() throws {
        let bytes: [UInt8] = Array(#"{"topic":"build.done","payload":"ok "#.utf8) + [0xFF, 0xFE] + Array(#" done","ts":"2024-01-01T00:00:00Z"}"#.utf8)
        let e = try #require(event(EventLineDecoder.decode(bytes, id: 3)))
        #expect(e.topic == "build.done")
        #expect(e.payloadText == "ok \u{FFFD}\u{FFFD} done")
        #expect(e.ts == "2024-01-01T00:00:00Z")
        // A truncated multi-byte sequence in the topic itself.
        let topicBytes: [UInt8] = Array(#"{"topic":"caf"#.utf8) + [0xC3] + Array(#""}"#.utf8)
        let t = try #require(event(EventLineDecoder.decode(topicBytes, id: 4)))
        #expect(t.topic == "caf\u{FFFD}")
    }

    @Test("unknown fields are kept in written order")
    func unknownFieldsKept() throws {
        let e = try #require(event(EventLineDecoder.decode(#"{"wave_id":"w1","topic":"t","blocked_count":2,"tool":"bash","wave_index":0}"#, id: 1)))
        #expect(e.fields.keys == ["wave_id", "topic", "blocked_count", "tool", "wave_index"])
        #expect(e.fields["blocked_count"]?.intValue == 2)
    }
}
