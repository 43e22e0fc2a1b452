import Foundation
import RalphAPI
import RalphSimulator
import Testing

@testable import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// The fast scan of a file and the full fold of the same file, side by side.
struct ScanAndFold {
    let scan: RunFileScan
    let fold: EventFileReader.Fold

    /// Scans and folds `file` (the fold through the lines the scan counted, as the background fold does).
    init(file: String, maxLineBytes: Int = 64 << 20) throws {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestError("cannot open \(file)") }
        defer { close(fd) }
        scan = try RunFileScan.scan(fd: fd, maxLineBytes: maxLineBytes)
        fold = try EventFileReader.fold(fd: fd, lines: scan.summary.lineCount, maxLineBytes: maxLineBytes)
    }

    /// Every way the scan could differ from the fold: the list's fields, the checkpoints, where reading goes on.
    var differences: [String] {
        var all = scan.summary.listDifferences(from: fold.state.summary)
        if scan.checkpoints != fold.checkpoints { all.append("checkpoints") }
        if scan.offset != fold.splitter.lineStart { all.append("offset \(scan.offset) ≠ \(fold.splitter.lineStart)") }
        return all
    }
}

struct TestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes `bytes` as a run file and checks the scan against the fold (and a whole-file fold, for the line count).
@discardableResult
func expectScanMatchesFold(
    _ bytes: [UInt8], in tmp: TempDir, maxLineBytes: Int = 64 << 20, _ what: Comment = "", sourceLocation: SourceLocation = #_sourceLocation
) throws -> ScanAndFold {
    let file = tmp.path + "/scan-\(UUID().uuidString.prefix(8)).jsonl"
    _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
    defer { unlink(file) }
    let pair = try ScanAndFold(file: file, maxLineBytes: maxLineBytes)
    #expect(pair.differences == [], what, sourceLocation: sourceLocation)
    // The scan counted every complete line there is.
    let fd = open(file, O_RDONLY | O_CLOEXEC)
    defer { close(fd) }
    let whole = try EventFileReader.fold(fd: fd, lines: nil, maxLineBytes: maxLineBytes)
    #expect(whole.state.lineCount == pair.scan.summary.lineCount, what, sourceLocation: sourceLocation)
    return pair
}

func bytes(_ lines: [String], newline: String = "\n", partial: String? = nil) -> [UInt8] {
    Array((lines.map { $0 + newline }.joined() + (partial ?? "")).utf8)
}

/// A run as ralph writes it, with every kind of line the summary depends on.
func mixedRun(iterations: Int, seed: UInt64 = 1) -> [String] {
    var random = SeededRandom(seed: seed)
    var lines = [taskStart("planner")]
    var s = 1
    for i in 1...iterations {
        let hat = ["planner", "builder", "reviewer"][i % 3]
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            s += 1
            switch Int.random(in: 0..<14, using: &random) {
            case 0: lines.append(record(t(s), i, hat, "step.\(i)", triggered: ["builder", "reviewer", "planner"][i % 3]))
            case 1: lines.append(record(t(s), i, hat, "progress"))
            case 2: lines.append(record(nil, i, hat, "no.time"))
            case 3: lines.append(record(t(s), i, "loop", "loop.tick"))
            case 4: lines.append(emit("human.interact", t(s), payload: "Which one?"))
            case 5: lines.append(emit("human.response", t(s), payload: "the second"))
            case 6: lines.append(record(t(s), i, hat, "human.interact", payload: "Merge now?"))
            case 7: lines.append(record(t(s), i, "loop", "loop.terminate", payload: .string("## Reason\ncompleted\n\n## Summary\n- Iterations: \(i)")))
            case 8: lines.append(emit("loop.terminate", t(s), payload: "## Reason\nstopped"))
            case 9: lines.append(["not json", "", "   ", "{\"payload\":\"no topic\"}", "[1,2]", "{\"topic\":\"\"}"].randomElement(using: &random)!)
            case 10: lines.append(emit("agent.usage", t(s), payload: .object(JSONObject([("usage", .object(JSONObject([("input_tokens", 10), ("output_tokens", 2)])))]))))
            case 11: lines.append(emit("note", nil, payload: "   \n  "))
            case 12: lines.append(record(t(s), i, hat, "wave.step", extra: [("wave_id", "w-1"), ("wave_index", .int(i % 3))]))
            default: lines.append(emit("build.done", t(s), payload: "tests: pass"))
            }
        }
    }
    return lines
}

@Suite("Fast scan of a run file: the list's values exactly as the fold has them")
struct RunFileScanTests {
    @Test("generated runs of every shape, with LF and CRLF endings and a partial last line")
    func generatedRuns() throws {
        let tmp = TempDir()
        for seed in 1...40 as ClosedRange<UInt64> {
            let lines = mixedRun(iterations: Int(seed) * 3, seed: seed)
            try expectScanMatchesFold(bytes(lines), in: tmp, "seed \(seed)")
            try expectScanMatchesFold(bytes(lines, newline: "\r\n"), in: tmp, "seed \(seed), CRLF")
            try expectScanMatchesFold(bytes(lines, partial: #"{"ts":"2026-02-05T11:00:00Z","iteration":99,"hat":"x","topic":"half"#), in: tmp, "seed \(seed), partial line")
        }
    }

    @Test("the real-shaped corpus, repeated past several checkpoints")
    func corpusRun() throws {
        let tmp = TempDir()
        var lines: [String] = []
        var iteration = 0
        while lines.count < 5_000 {
            lines += ScannerCorpus.lines.map { $0.replacingOccurrences(of: #""iteration":12"#, with: #""iteration":\#(iteration)"#) }
            iteration += 1
        }
        let pair = try expectScanMatchesFold(bytes(lines), in: tmp)
        #expect(pair.scan.checkpoints.count == 5)
        #expect(pair.scan.summary.eventCount == lines.count)
        #expect(pair.scan.summary.termination?.reason != nil || pair.scan.summary.termination == nil)
    }

    @Test("a run written by RalphRunWriter (the simulator's ralph) scans as it folds, at every stage")
    func simulatorRun() throws {
        let tmp = TempDir()
        let writer = try RalphRunWriter(workspace: tmp.dir("ws"))
        try writer.begin(prompt: "Ship the login page\nwith tests")
        try writer.record(topic: "task.start", payload: "Ship the login page\nwith tests", iteration: 0, hat: "loop", triggered: "planner")
        for i in 1...30 {
            try writer.record(topic: "build.task", payload: "task \(i)", iteration: i, hat: "planner", triggered: "builder")
            try writer.emit(topic: "progress", payload: .string("working on \(i)"))
            try writer.record(topic: "build.done", payload: "tests: pass", iteration: i, hat: "builder", triggered: "reviewer", blockedCount: i % 2 == 0 ? 1 : nil)
            if i % 10 == 0 {
                try writer.record(topic: "human.interact", payload: "OK to go on?", iteration: i, hat: "reviewer")
                try writer.emit(topic: "human.response", payload: .string("yes"))
            }
            let now = try Array(Data(contentsOf: URL(fileURLWithPath: writer.eventsFile)))
            try expectScanMatchesFold(now, in: tmp, "after iteration \(i)")
        }
        try writer.terminate(reason: "completed", status: "All done.", iterations: 30, exitCode: 0)
        let pair = try expectScanMatchesFold(try Array(Data(contentsOf: URL(fileURLWithPath: writer.eventsFile))), in: tmp)
        #expect(pair.scan.summary.termination?.reason == "completed")
        #expect(pair.scan.summary.taskName == "Ship the login page")
        writer.releaseLock()
    }

    @Test("edge cases: empty, blank, malformed only, no records, no timestamps, a resumed loop, questions")
    func edgeCases() throws {
        let tmp = TempDir()
        let cases: [(String, [String])] = [
            ("empty", []),
            ("blank lines", ["", " ", "\t", "\r"]),
            ("malformed only", ["not json", "{", "[]", #"{"topic":5}"#]),
            ("emit lines only", (1...50).map { emit("note", t($0)) }),
            ("no timestamps", [record(nil, 1, "builder", "a", triggered: "reviewer"), emit("x", nil), record(nil, 2, "reviewer", "b")]),
            ("no payload anywhere", [emit("a", t(1), payload: nil), emit("b", t(2), payload: .null)]),
            ("blank payloads before the task", [emit("a", t(1), payload: "  \n \n"), emit("b", t(2), payload: ""), emit("c", t(3), payload: "\n the task \n")]),
            ("a non-string payload gives the task", [emit("a", t(1), payload: .object(JSONObject([("k", "v")])))]),
            ("terminated then resumed", [taskStart("planner"), record(t(2), 1, "loop", "loop.terminate", payload: "## Reason\nstopped"), record(t(3), 2, "builder", "go.on")]),
            ("terminated, then an emit", [taskStart("planner"), record(t(2), 1, "loop", "loop.terminate", payload: "## Reason\nstopped"), emit("after", t(3))]),
            ("an emitted termination", [taskStart("planner"), emit("loop.terminate", t(2), payload: "## Reason\ncancelled")]),
            ("question pending", [taskStart("planner"), record(t(1), 1, "planner", "human.interact", payload: "Which?"), emit("note", t(2))]),
            ("question answered", [taskStart("planner"), emit("human.interact", t(1), payload: "Which?"), emit("human.response", t(2), payload: "A")]),
            ("question cleared by a record", [taskStart("planner"), emit("human.interact", t(1), payload: "Which?"), record(t(2), 1, "builder", "x")]),
            ("a record that names no hat last", [taskStart("planner"), record(t(1), 1, "builder", "x"), record(t(2), 1, "loop", "y")]),
            ("hat loop only", [record(t(1), 0, "loop", "a"), record(t(2), 1, "loop", "b")]),
            ("iteration as a string and as a double", [record(t(1), 1, "builder", "a").replacingOccurrences(of: #""iteration":1"#, with: #""iteration":"7""#),
                record(t(2), 1, "builder", "b").replacingOccurrences(of: #""iteration":1"#, with: #""iteration":8.0"#)]),
            ("escaped keys and topics", [###"{"t\u0073":"2026-02-05T10:00:01Z","iteration":1,"h\u0061t":"builder","topic":"loop.t\u0065rminate","payload":"## Reason\nx"}"###,
                #"{"topic":"human.inter\u0061ct","payload":"Q?","ts":"2026-02-05T10:00:02Z"}"#]),
            ("duplicated members", [#"{"topic":"a","ts":"x","ts":5,"iteration":1,"hat":"b","hat":null}"#, #"{"topic":5,"topic":"b","ts":5,"ts":"2026-02-05T10:00:02Z"}"#]),
            ("an unparseable timestamp last", [emit("a", t(1)), emit("b", "yesterday")]),
            ("the last record far from the end", [taskStart("planner"), record(t(1), 7, "builder", "x", triggered: "reviewer")] + (2..<20_000).map { emit("note", t($0)) }),
        ]
        for (name, lines) in cases {
            try expectScanMatchesFold(bytes(lines), in: tmp, "\(name)")
            try expectScanMatchesFold(bytes(lines, newline: "\r\n"), in: tmp, "\(name), CRLF")
            try expectScanMatchesFold(bytes(lines, partial: "{\"topic\":\"partial\""), in: tmp, "\(name), partial line")
        }
    }

    @Test("a difference in any field the list shows is seen (the comparisons above are not vacuous)")
    func differencesAreSeen() throws {
        let tmp = TempDir()
        let pair = try expectScanMatchesFold(bytes(mixedRun(iterations: 30, seed: 2)), in: tmp)
        var other = pair.fold.state.summary
        other.eventCount += 1
        other.hat = "someone else"
        other.pendingQuestion = nil
        other.lastEventDate = nil
        let differences = pair.scan.summary.listDifferences(from: other)
        #expect(differences.contains("event_count") && differences.contains("hat") && differences.contains("last_event_date"))
    }

    @Test("huge lines: over the line limit they are malformed, under it they are events; the lines around them count")
    func hugeLines() throws {
        let tmp = TempDir()
        let big = emit("big", t(1), payload: .string(String(repeating: "x", count: 300_000)))
        let lines = [taskStart("planner"), big, record(t(2), 1, "builder", "after", triggered: "reviewer"), big, emit("last", t(3))]
        let small = try expectScanMatchesFold(bytes(lines), in: tmp, maxLineBytes: 100_000, "a 100 kB limit")
        #expect(small.scan.summary.malformedCount == 2)
        let large = try expectScanMatchesFold(bytes(lines), in: tmp, "the default limit")
        #expect(large.scan.summary.malformedCount == 0)
        // A huge last line without its newline yet.
        try expectScanMatchesFold(bytes(lines, partial: big), in: tmp, maxLineBytes: 100_000, "a huge partial line")
    }

    @Test("random files of real, generated and mutated lines")
    func randomFiles() throws {
        let tmp = TempDir()
        var random = SeededRandom(seed: 0xF11E)
        let pool = ScannerCorpus.lines + mixedRun(iterations: 20, seed: 7)
        for n in 0..<150 {
            var lines: [String] = []
            for _ in 0..<Int.random(in: 0...120, using: &random) {
                switch Int.random(in: 0..<6, using: &random) {
                case 0: lines.append(String(decoding: RandomLine.make(using: &random), as: UTF8.self))
                case 1:
                    var line = Array(pool.randomElement(using: &random)!.utf8)
                    if !line.isEmpty { line[Int.random(in: 0..<line.count, using: &random)] = Array(#"{}":,\ "#.utf8).randomElement(using: &random)! }
                    lines.append(String(decoding: line, as: UTF8.self))
                default: lines.append(pool.randomElement(using: &random)!)
                }
            }
            let newline = Bool.random(using: &random) ? "\n" : "\r\n"
            let partial = Bool.random(using: &random) ? pool.randomElement(using: &random)!.prefix(20).description : nil
            try expectScanMatchesFold(bytes(lines, newline: newline, partial: partial), in: tmp, "random file \(n)")
        }
    }

    @Test("every prefix of a run file — what a scan sees of a file being written — scans as it folds")
    func everyPrefix() throws {
        let tmp = TempDir()
        let whole = bytes(mixedRun(iterations: 6, seed: 3))
        for cut in stride(from: 0, through: whole.count, by: 7) {
            try expectScanMatchesFold(Array(whole[0..<cut]), in: tmp, "the first \(cut) bytes")
        }
    }

    @Test("a file appended to while it is scanned: the scan covers whole lines, and folding that many lines agrees")
    func appendedWhileScanned() throws {
        let tmp = TempDir()
        let file = tmp.file("grow.jsonl", mixedRun(iterations: 400, seed: 9).joined(separator: "\n") + "\n")
        let writing = Thread {
            for n in 0..<3_000 {
                appendLine(emitLine("live", "\(n) " + String(repeating: "y", count: n % 300)), to: file)
                if n % 100 == 0 { appendLine("garbage {", to: file) }
            }
        }
        writing.start()
        for _ in 0..<20 {
            let pair = try ScanAndFold(file: file)
            #expect(pair.differences == [])
        }
        while writing.isExecuting { usleep(10_000) }
    }
}
