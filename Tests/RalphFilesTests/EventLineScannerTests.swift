import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

/// What the decoder and the fold say of a line, in the scanner's terms: the reference the scanner must match.
func decodedFacts(_ bytes: [UInt8]) -> LineFacts {
    switch EventLineDecoder.decode(bytes, id: 1) {
    case .blank: return .blank
    case .malformed: return .malformed
    case .event(let e):
        var flags: LineFacts.Flags = []
        if e.ts != nil { flags.insert(.ts) }
        if e.payloadText != nil { flags.insert(.payload) }
        if e.isOrchestratorRecord {
            flags.insert(.record)
            if RunFileScan.hatNamed(by: e) != nil { flags.insert(.namesHat) }
        }
        if e.topic == "loop.terminate" { flags.insert(.terminate) }
        if e.topic == "human.interact" { flags.insert(.interact) }
        if e.topic == "human.response" { flags.insert(.response) }
        return LineFacts(kind: .event, flags: flags)
    }
}

/// A seeded generator (SplitMix64), so a failing case can be found again.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Real-shaped lines: the reference's, the benchmark corpus's, and ralph 2.9–2.10's additions.
enum ScannerCorpus {
    static let lines: [String] = ReferenceLines.all + [
        #"{"ts":"2026-02-05T08:11:48.000120000+00:00","iteration":3,"hat":"planner","topic":"plan.ready","triggered":"builder","payload":"Plan: rewrite the four specs, then review them against the code."}"#,
        #"{"payload":{"status":"success","files":["Sources/App/main.swift","Tests/AppTests/AppTests.swift"],"duration_ms":1840},"topic":"build.done","ts":"2026-02-05T09:00:00+00:00"}"#,
        #"{"payload":"{\"usage\":{\"input_tokens\":12840,\"output_tokens\":2210,\"cache_read_input_tokens\":98000,\"cache_creation_input_tokens\":4100},\"total_cost_usd\":0.4213}","topic":"agent.usage","ts":"2026-02-05T09:00:01.250+00:00"}"#,
        #"{"ts":"2026-06-20T10:00:00.000+00:00","iteration":4,"hat":"dispatcher","topic":"review.file","payload":"src/lib.rs","wave_id":"w-0a1b2c3d","wave_index":1,"wave_total":3}"#,
        #"{"topic":"human.guidance.ack","payload":"Switched to the retry approach as asked","ts":"2026-06-20T10:01:00Z"}"#,
        #"{"ts":"2026-02-05T10:09:00Z","iteration":41,"hat":"planner","topic":"human.interact","payload":"Which one?"}"#,
        #"{"topic":"human.response","payload":"the second","ts":"2026-02-05T10:09:30Z"}"#,
        #"{"ts":"2026-02-05T09:02:00.000+00:00","iteration":7,"hat":"builder","topic":"build.blocked","triggered":"builder","payload":"tests: fail","blocked_count":2}"#,
        #"{"topic":"tool.call","tool":"Edit","payload":{"file":"a.swift","n":1.5,"ok":true,"none":null},"ts":"2026-02-05T10:00:00.400Z"}"#,
    ]
}

@Suite("Event line scanner")
struct EventLineScannerTests {
    func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(Array(text.utf8), sourceLocation: sourceLocation)
    }

    func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let scanned = EventLineScanner.scan(bytes)
        let decoded = decodedFacts(bytes)
        #expect(scanned == decoded, "\(String(decoding: bytes.prefix(300), as: UTF8.self))", sourceLocation: sourceLocation)
    }

    @Test("every real-shaped line is classified as the decoder and the fold classify it")
    func corpus() {
        for line in ScannerCorpus.lines {
            check(line)
            check(line + "\r")
            check("  \t" + line + " \r")
        }
    }

    @Test("blank, whitespace-only and non-object lines")
    func blankAndNonObjects() {
        for line in ["", " ", "\t\r", "\r", "[]", "[1]", "\"topic\"", "123", "null", "true", "{", "}", "{}", "{ }", "x", "{\"topic\":\"x\"} x",
            "{\"topic\":\"x\"}}", "{\"topic\":\"x\"}{}", "\u{0}", "{\"topic\":\"x\"}\u{0}"]
        {
            check(line)
        }
        check([0xFF, 0xFE])
        check([0x7B, 0x22, 0x74, 0x6F, 0x70, 0x69, 0x63, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])  // {"topic":"\xFF"}
    }

    @Test("topics: empty, not a string, duplicated (the last wins), escaped, the special ones")
    func topics() {
        for line in [
            #"{"topic":""}"#, #"{"topic":5}"#, #"{"topic":null}"#, #"{"topic":"a","topic":5}"#, #"{"topic":5,"topic":"a"}"#,
            #"{"topic":"a","topic":""}"#, #"{"t\u006fpic":"x"}"#, #"{"topic":"\u0000"}"#, #"{"topic":"loop.terminate"}"#,
            #"{"topic":"loop.t\u0065rminate"}"#, #"{"topic":"human.interact"}"#, #"{"topic":"human.response"}"#, #"{"topic":"human.interac"}"#,
            #"{"topic":"human\/response"}"#, #"{"topic":"human.response "}"#, #"{"Topic":"x"}"#, #"{"topic ":"x"}"#, #"{"topic":["x"]}"#,
        ] {
            check(line)
        }
    }

    @Test("escapes: every valid one, invalid and truncated ones, surrogates")
    func escapes() {
        for body in [#"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#, #"\u00e9"#, #"\uD83D\uDE00"#, #"\uD800"#, #"\uDC00"#,
            #"\uD800\u0041"#, #"\uD800\uZZZZ"#, #"\uD800\u12"#, #"\x"#, #"\u12"#, #"\u12G4"#, #"\"#, #"\u"#, #"\uD800\"#, #"\'"#]
        {
            check(#"{"topic":"t","payload":""# + body + #""}"#)
            check(#"{"payload":""# + body + #"","topic":"t"}"#)
            check(#"{"topic":"t","payload":""# + body)
        }
    }

    @Test("numbers as JSON writes them and the ones it does not")
    func numbers() {
        for number in ["0", "-0", "1", "-1", "01", "-01", "1.", "1.5", ".5", "1e", "1e+", "1e5", "1E-5", "1e+05", "-", "--1", "+1", "1.5e3", "0x10",
            "123456789012345678", "1234567890123456789", "12345678901234567890", "99999999999999999999999", "1e999", "-1e999", "9e15", "8.9e15",
            "3.0", "-0.0", "2.5", "1" + String(repeating: "0", count: 400), "Infinity", "NaN"]
        {
            check(#"{"topic":"t","x":"# + number + "}")
            check(#"{"topic":"t","iteration":"# + number + #","hat":"builder"}"#)
        }
    }

    @Test("iterations: integers, integral doubles, decimal strings, and what is not an iteration")
    func iterations() {
        for value in ["3", "3.0", "3.5", "1e2", "9e15", "8.9e15", "-0.0", "12345678901234567890", "9223372036854775807", "9223372036854775808", "true",
            "null", "{}", "[3]", #""3""#, #""+3""#, #""-3""#, #"" 3""#, #""3 ""#, #""\u0033""#, #""""#, #""+""#, #""03""#,
            #""123456789012345678""#, #""1234567890123456789""#, #""99999999999999999999""#, #""3.0""#, #""٣""#]
        {
            for hat in [#""builder""#, #""loop""#, #""""#, "5", "null", #""l\u006fop""#] {
                check(#"{"ts":"2026-01-01T00:00:00Z","iteration":"# + value + #","hat":"# + hat + #","topic":"t"}"#)
                check(#"{"iteration":"# + value + #","hat":"# + hat + #","topic":"t","triggered":"reviewer"}"#)
                check(#"{"iteration":"# + value + #","hat":"# + hat + #","topic":"t","triggered":""}"#)
            }
        }
    }

    @Test("ts, triggered and payload of every kind, and members given twice")
    func otherMembers() {
        for value in [#""x""#, #""""#, "5", "null", "true", "false", "{}", "[]", #"{"a":[1,{"b":null}]}"#, #""\u0000""#] {
            check(#"{"topic":"t","ts":"# + value + "}")
            check(#"{"topic":"t","payload":"# + value + "}")
            check(#"{"topic":"t","iteration":1,"hat":"loop","triggered":"# + value + "}")
            check(#"{"topic":"t","ts":"x","ts":"# + value + "}")
            check(#"{"topic":"t","payload":"# + value + #","payload":"x"}"#)
        }
    }

    @Test("structure: whitespace everywhere, trailing commas, missing colons, literals")
    func structure() {
        for line in [
            "{ \"topic\" : \"t\" , \"x\" : [ 1 , 2 ] }", "{\"topic\":\"t\",}", "{\"topic\":\"t\",,\"x\":1}", "{\"topic\" \"t\"}", "{\"topic\":}",
            "{\"topic\":\"t\",\"x\":[1,]}", "{\"topic\":\"t\",\"x\":[,1]}", "{\"topic\":\"t\",\"x\":tru}", "{\"topic\":\"t\",\"x\":truex}",
            "{\"topic\":\"t\",\"x\":nul}", "{\"topic\":\"t\",\"x\":fals}", "{\"topic\":\"t\",\"x\":True}", "{\"topic\":\"t\",\"x\":{\"a\"}}",
            "{\"topic\":\"t\",\"x\":{\"a\":1,}}", "{\"topic\":\"t\",\"x\":{1:2}}", "{\"topic\":\"t\"\r,\"x\":\r1}", "{\"topic\":\"t\",\"x\":\"a\tb\u{1}\"}",
            "{'topic':'t'}", "{\"topic\":\"t\",\"x\":[[[]]]}", "{\"topic\":\"t\" \"x\":1}", "{\"topic\":\"t\",\"x\":\"unterminated}",
        ] {
            check(line)
        }
    }

    @Test("nesting: 512 containers deep is an event, 513 is malformed")
    func depth() {
        for depth in [510, 511, 512, 513, 514] {
            let inner = depth - 1
            check(#"{"topic":"t","x":"# + String(repeating: "[", count: inner) + String(repeating: "]", count: inner) + "}")
            check(#"{"topic":"t","x":"# + String(repeating: "{\"a\":", count: inner) + "1" + String(repeating: "}", count: inner) + "}")
        }
    }

    @Test("every truncation of the real-shaped lines")
    func truncations() {
        for line in ScannerCorpus.lines {
            let bytes = Array(line.utf8)
            for cut in 0...bytes.count { check(Array(bytes[0..<cut])) }
        }
    }

    @Test("random mutations of real-shaped lines are classified as the decoder classifies them")
    func mutations() {
        var random = SeededRandom(seed: 0x5EED_25)
        let alphabet = Array(#"{}[]":,\ u0123456789abcdefABCDEF tfnrlse-+.Eopic"#.utf8) + [0x09, 0x0D, 0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var mismatches = 0
        var seen: [LineFacts.Kind: Int] = [:]
        for _ in 0..<60_000 {
            var bytes = Array(ScannerCorpus.lines.randomElement(using: &random)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0 where at < bytes.count: bytes.remove(at: at)
                case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                case 2 where at < bytes.count: bytes[at] = alphabet.randomElement(using: &random)!
                case 3:
                    let length = Int.random(in: 1...12, using: &random)
                    let from = Int.random(in: 0...max(0, bytes.count - length), using: &random)
                    bytes.insert(contentsOf: bytes[from..<min(bytes.count, from + length)], at: at)
                default: bytes = Array(bytes[0..<at])
                }
            }
            let scanned = EventLineScanner.scan(bytes)
            let decoded = decodedFacts(bytes)
            seen[decoded.kind, default: 0] += 1
            if scanned != decoded {
                mismatches += 1
                if mismatches <= 5 { Issue.record("\(scanned) ≠ \(decoded) for \(String(decoding: bytes, as: UTF8.self))") }
            }
        }
        #expect(mismatches == 0)
        // Mutations that keep the line an event and ones that break it, both in numbers.
        #expect(seen[.event, default: 0] > 5_000 && seen[.malformed, default: 0] > 5_000, "\(seen)")
    }

    @Test("random objects with the members the fold reads, written with random spacing and escapes")
    func generatedObjects() {
        var random = SeededRandom(seed: 0xC0FFEE)
        var mismatches = 0
        var flags: [UInt8: Int] = [:]
        for _ in 0..<40_000 {
            let line = RandomLine.make(using: &random)
            let scanned = EventLineScanner.scan(line)
            let decoded = decodedFacts(line)
            for bit in 0..<7 where decoded.flags.rawValue & (1 << bit) != 0 { flags[UInt8(bit), default: 0] += 1 }
            if scanned != decoded {
                mismatches += 1
                if mismatches <= 5 { Issue.record("\(scanned) ≠ \(decoded) for \(String(decoding: line, as: UTF8.self))") }
            }
        }
        #expect(mismatches == 0)
        // Every fact came up, many times over.
        #expect((0..<7).allSatisfy { flags[UInt8($0), default: 0] > 50 }, "\(flags)")
    }
}

/// Random event-like objects: the fold's members (or near misses) with values of every kind.
enum RandomLine {
    static let keys = ["topic", "ts", "iteration", "hat", "triggered", "payload", "t\\u006fpic", "h\\u0061t", "tool", "wave_id", "topic ", "Hat", ""]
    static let strings = [
        "loop.terminate", "human.interact", "human.response", "loop", "", "builder", "l\\u006fop", "human.inter\\u0061ct", "3", "+3", "\\u0033",
        "2026-02-05T10:00:00Z", "a\\\"b", "\\uD800", "é", "12345678901234567890",
    ]

    static func make(using random: inout SeededRandom) -> [UInt8] {
        var out = "{"
        let count = Int.random(in: 0...7, using: &random)
        for i in 0..<count {
            if i > 0 { out += "," + space(&random) }
            out += "\"" + keys.randomElement(using: &random)! + "\"" + space(&random) + ":" + space(&random) + value(&random, depth: 0)
        }
        out += space(&random) + "}"
        if Int.random(in: 0..<20, using: &random) == 0 { out += [",", "}", " x", "\""].randomElement(using: &random)! }
        return Array(out.utf8)
    }

    static func space(_ random: inout SeededRandom) -> String {
        ["", "", "", " ", "\t", "\r", "  "].randomElement(using: &random)!
    }

    static func value(_ random: inout SeededRandom, depth: Int) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2: return "\"" + strings.randomElement(using: &random)! + "\""
        case 3: return ["0", "3", "-7", "3.0", "3.5", "1e2", "1e999", "12345678901234567890", "01", "-"].randomElement(using: &random)!
        case 4: return ["true", "false", "null"].randomElement(using: &random)!
        case 5 where depth < 3: return "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        case 6 where depth < 3:
            return "{" + (0..<Int.random(in: 0...3, using: &random)).map { _ in "\"k\":" + value(&random, depth: depth + 1) }.joined(separator: ",") + "}"
        default: return "\"" + strings.randomElement(using: &random)! + "\""
        }
    }
}
