import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// Lines touching every part of the fold: orchestrator records and hat changes, `ralph emit` lines, backpressure,
/// token reports, tool calls, a question, a malformed and a blank line, a record without a timestamp, the end.
func sampleLines(iterations: Int = 40) -> [String] {
    var lines = [
        #"{"ts":"2026-02-05T10:00:00.000000000+00:00","iteration":0,"hat":"loop","topic":"task.start","triggered":"planner","payload":"Review the specs\nsecond line"}"#
    ]
    for i in 1...iterations {
        let hat = ["planner", "builder", "reviewer"][i % 3]
        let s = 10 + i
        lines.append(#"{"ts":"2026-02-05T10:00:\#(s).100000000+00:00","iteration":\#(i),"hat":"\#(hat)","topic":"step.\#(i)","triggered":"\#(["builder", "reviewer", "planner"][i % 3])","payload":"step \#(i)"}"#)
        lines.append(#"{"payload":"tests: pass, lint: fail\u001b[0m, typecheck: pass","topic":"build.done","ts":"2026-02-05T10:00:\#(s).200+00:00","blocked_count":\#(i)}"#)
        lines.append(#"{"payload":{"usage":{"input_tokens":\#(100 + i),"output_tokens":7}},"total_cost_usd":0.25,"topic":"agent.usage","ts":"2026-02-05T10:00:\#(s).300Z"}"#)
        lines.append(#"{"topic":"tool.call","tool":"Edit","payload":{"file":"a.swift","n":1.5,"ok":true,"none":null},"ts":"2026-02-05T10:00:\#(s).400Z"}"#)
    }
    lines.append("not json")
    lines.append("")
    lines.append(#"{"iteration":\#(iterations + 1),"hat":"planner","topic":"no.time","payload":"x"}"#)
    lines.append(#"{"ts":"2026-02-05T10:09:00Z","iteration":\#(iterations + 1),"hat":"planner","topic":"human.interact","payload":"Which one?"}"#)
    lines.append(###"{"ts":"2026-02-05T10:10:00Z","iteration":\###(iterations + 1),"hat":"loop","topic":"loop.terminate","payload":"## Reason\ncompleted\n\n## Status\nDone.\n\n## Summary\n- Iterations: 41\n- Duration: 10m 0s\n- Exit code: 0"}"###)
    return lines
}

/// A root holding one finished run of `sampleLines(iterations:)`, and the directory its index entries go to.
struct IndexedRun {
    let tmp = TempDir()
    let lines: [String]
    let file: String
    var indexDirectory: String { tmp.path + "/index" }
    var id: String { RunID.make(forPath: file) }

    init(iterations: Int) {
        lines = sampleLines(iterations: iterations)
        file = tmp.file("p/.ralph/events-20260205-100000.jsonl", lines.joined(separator: "\n") + "\n")
    }
}

private func fold(_ lines: [String], from start: Int = 0, into state: RunState = RunState()) -> RunState {
    var state = state
    for (index, line) in lines.enumerated() where index >= start {
        state.apply(EventLineDecoder.decode(line, id: index + 1))
    }
    return state
}

private func encoded(_ state: RunState) -> [UInt8] {
    var w = BinaryWriter()
    state.encode(into: &w)
    return w.bytes
}

/// An entry of the current layout around the given sections (their checksums right, whatever they hold).
func forgedEntry(summary: [UInt8], details: [UInt8]) -> [UInt8] {
    var out = RunIndexStore.magic
    for word in [UInt64(summary.count), RunIndexStore.checksum(summary)] {
        var v = word.littleEndian
        withUnsafeBytes(of: &v) { out.append(contentsOf: $0) }
    }
    return out + summary + details
}

/// Everything the routes show of a state, as JSON (so two states can be compared field by field).
func shown(_ state: RunState) throws -> String {
    struct View: Encodable {
        var counts: [Int]
        var iteration: Int
        var hat: String?
        var times: [String?]
        var taskName: String?
        var termination: StopReason?
        var hatFlow: [HatTransition]
        var hatTransitions: Int
        var iterations: [IterationItem]
        var hatUsage: [HatUsage]
        var backpressure: Backpressure?
        var tokens: TokenMetrics?
        var recentToolCalls: [Int]
        var recentEvents: [Int]
        var pendingQuestion: Int?
    }
    let view = View(
        counts: [state.lineCount, state.eventCount, state.malformedCount], iteration: state.iteration, hat: state.hat,
        times: [state.firstEventAt, state.lastEventAt, state.firstEventDate.map(Timestamp.format), state.lastEventDate.map(Timestamp.format)],
        taskName: state.taskName, termination: state.termination, hatFlow: state.hatFlow, hatTransitions: state.hatTransitionCount,
        iterations: state.iterationItems(), hatUsage: state.hatUsageList(), backpressure: state.backpressure, tokens: state.tokens,
        recentToolCalls: state.recentToolCalls.map(\.id), recentEvents: state.recentEvents.map(\.id), pendingQuestion: state.pendingQuestion?.id
    )
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(view), as: UTF8.self)
}

@Suite("Run index: the fold state on disk")
struct RunIndexTests {
    @Test("a folded state survives encoding exactly, and folding on after a restore matches folding straight through")
    func stateRoundTrip() throws {
        let lines = sampleLines()
        let half = lines.count / 2
        let first = fold(Array(lines[0..<half]))
        var reader = BinaryReader(encoded(first))
        let restored = try RunState(decoding: &reader)
        #expect(reader.isAtEnd)
        #expect(encoded(restored) == encoded(first))
        #expect(try shown(restored) == shown(first))
        // The recent events come back as the very events of the file.
        #expect(restored.recentEvents == first.recentEvents)

        let straight = fold(lines)
        let resumed = fold(lines, from: half, into: restored)
        #expect(try shown(resumed) == shown(straight))
        #expect(encoded(resumed) == encoded(straight))
        #expect(straight.backpressure?.checks.map(\.name) == ["tests", "lint", "typecheck"])
        #expect(straight.backpressure?.lint == false)
        #expect(straight.termination?.reason == "completed")
    }

    @Test("a damaged, truncated or foreign entry is rejected, never trusted")
    func damagedEntries() throws {
        let state = fold(sampleLines(iterations: 3))
        let entry = RunIndexStore.Entry(
            file: "/x/.ralph/events-1.jsonl", device: 1, inode: 2, offset: 100, head: Array("{\"ts\"".utf8), tail: Array("}\n".utf8),
            checkpoints: [0], state: state
        )
        let bytes = RunIndexStore.encode(entry)
        let decoded = try RunIndexStore.decode(bytes)
        #expect(decoded.file == entry.file && decoded.offset == 100 && decoded.checkpoints == [0])
        #expect(encoded(decoded.state) == encoded(state))

        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x40
        #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decode(flipped) }
        #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decode(Array(bytes.dropLast(5))) }
        #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decode(Array("hello world, not an index".utf8)) }
        #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decode([]) }
        // Random bytes behind a valid header and checksum, as the summary section or as the details section: the
        // reader fails cleanly instead of trapping.
        var summary = BinaryWriter()
        RunIndexStore.encodeSummary(state.summary, into: &summary)
        for seed in 0..<200 {
            // A linear congruential sequence: deterministic, so a failure can be replayed.
            var x = UInt64(seed) &+ 1
            let body = (0..<(seed % 64 + 1)).map { _ -> UInt8 in
                x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: x >> 56)
            }
            let forged = forgedEntry(summary: body, details: [])
            #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decode(forged) }
            #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decodeSummary(forged, fileSize: forged.count) }
            // A valid summary section whose details section is noise: listed, but never used for details.
            var front = BinaryWriter()
            front.write(Int(RunIndexStore.version))
            front.write(RunState.encodingVersion)
            front.write("/x/.ralph/events-1.jsonl")
            front.write(UInt64(1))
            front.write(UInt64(2))
            front.write(100)
            front.write(bytes: [])
            front.write(bytes: [])
            front.write(1)
            front.write(0)
            front.write(body.count)
            front.write(RunIndexStore.checksum(body))
            let listed = forgedEntry(summary: front.bytes + summary.bytes, details: body)
            #expect(try RunIndexStore.decodeSummary(listed, fileSize: listed.count).summary.lineCount == state.lineCount)
            #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decode(listed) }
        }
    }

    @Test("a restarted catalog reads only the lines appended since it stopped, and ends up where a fresh fold does")
    func restartReadsOnlyAppended() async throws {
        let run = IndexedRun(iterations: 700)  // > 2 checkpoints

        let first = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
        // Large enough to be listed from a fast scan first; its fold, made in the background, is what is indexed.
        #expect(first.startupReport()?.scanned == 1)
        #expect(first.startupReport()?.linesRead == run.lines.count)
        #expect(await first.waitUntilFolded(id: run.id, timeout: .seconds(20)))
        await first.stopAndWait()
        #expect(FileManager.default.fileExists(atPath: run.indexDirectory + "/\(run.id).idx"))

        for n in 1...10 { appendLine(emitLine("after.restart", "\(n)"), to: run.file) }
        let second = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
        defer { second.stop() }
        #expect(second.startupReport()?.restoredFromIndex == 1)
        #expect(second.startupReport()?.linesRead == 10)

        let fresh = await startCatalog([run.tmp.path])
        defer { fresh.stop() }
        #expect(await fresh.waitUntilFolded(id: run.id, timeout: .seconds(20)))
        let restored = try #require(try second.detailedSnapshot(id: run.id))
        let folded = try #require(fresh.snapshot(id: run.id))
        #expect(restored.state.lineCount == run.lines.count + 10)
        #expect(try shown(restored.state) == shown(try #require(folded.detailed).state))
        #expect(restored.checkpoints == folded.checkpoints)
        #expect(restored.checkpoints.count == 3)
        // Replay positions still find the right lines.
        let start = try #require(second.replayStart(id: run.id, afterLine: 2100))
        let batch = try EventFileReader.read(from: start, after: 2100, through: 2105)
        #expect(batch.events.map(\.id) == [2101, 2102, 2103, 2104, 2105])

        // Lines appended while it runs are folded in as usual.
        appendLine(emitLine("live", "x"), to: run.file)
        try await waitFor(5, "the live line") { second.snapshot(id: run.id)?.state.lineCount == run.lines.count + 11 }
    }

    @Test("a file replaced, rewritten in place or truncated since it was indexed, or a damaged entry, is folded from the start")
    func staleEntriesIgnored() async throws {
        let run = IndexedRun(iterations: 30)
        let entryPath = run.indexDirectory + "/\(run.id).idx"

        func index() async throws {
            try? FileManager.default.removeItem(atPath: entryPath)
            let catalog = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
            await catalog.stopAndWait()
            #expect(FileManager.default.fileExists(atPath: entryPath))
        }

        func expectFoldedFromStart(_ what: Comment) async throws {
            let catalog = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
            let fresh = await startCatalog([run.tmp.path])
            defer { fresh.stop() }
            #expect(catalog.startupReport()?.restoredFromIndex == 0, what)
            #expect(try shown(try #require(try catalog.detailedSnapshot(id: run.id)).state) == shown(try #require(fresh.snapshot(id: run.id)?.detailed).state), what)
            await catalog.stopAndWait()
        }

        // Replaced: a new file (new inode) at the same path, with other lines.
        try await index()
        let other = sampleLines(iterations: 31).map { $0.replacingOccurrences(of: "step ", with: "other ") }
        let replacement = run.tmp.file("p/.ralph/replacement.tmp", other.joined(separator: "\n") + "\n")
        #expect(rename(replacement, run.file) == 0)
        try await expectFoldedFromStart("replaced file")

        // Rewritten in place: same inode, longer, different bytes before the indexed offset.
        try await index()
        let handle = try #require(FileHandle(forWritingAtPath: run.file))
        try handle.truncate(atOffset: 0)
        // (Same first line; the lines end differently where the index stopped reading.)
        let rewritten = Array(other.dropLast()) + (1...40).map { emitLine("rewritten", "\($0)") }
        try handle.write(contentsOf: Data((rewritten.joined(separator: "\n") + "\n").utf8))
        try handle.close()
        try await expectFoldedFromStart("rewritten in place")

        // Truncated below the indexed offset.
        try await index()
        #expect(truncate(run.file, 100) == 0)
        try await expectFoldedFromStart("truncated")

        // Damaged entry (its summary section, which a restart reads): rejected and removed.
        _ = FileManager.default.createFile(atPath: run.file, contents: Data((run.lines.joined(separator: "\n") + "\n").utf8))
        try await index()
        var bytes = try #require(FileManager.default.contents(atPath: entryPath))
        bytes[RunIndexStore.headerSize + 3] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: entryPath))
        try await expectFoldedFromStart("damaged summary")

        // Truncated entry (in its details, which a restart does not read): its size gives it away.
        try await index()
        bytes = try #require(FileManager.default.contents(atPath: entryPath))
        try bytes.dropLast(7).write(to: URL(fileURLWithPath: entryPath))
        try await expectFoldedFromStart("truncated entry")
    }

    @Test("a finished run keeps only its summary in memory; its details come back from the index, from the file, and when it grows")
    func finishedRunsDropDetails() async throws {
        let run = IndexedRun(iterations: 60)
        let catalog = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
        defer { catalog.stop() }
        try await waitFor(5, "the details to be dropped") { catalog.snapshot(id: run.id).map { $0.details == nil } == true }
        let summary = try #require(catalog.snapshot(id: run.id))
        #expect(summary.details == nil)
        #expect(summary.state.eventCount == run.lines.count - 2 && summary.state.iteration == 61)

        let fresh = await startCatalog([run.tmp.path])
        let expected = try shown(try #require(fresh.snapshot(id: run.id)?.detailed).state)
        fresh.stop()
        // From the index entry.
        #expect(try shown(try #require(try catalog.detailedSnapshot(id: run.id)).state) == expected)
        // Without it, from the file.
        try FileManager.default.removeItem(atPath: run.indexDirectory + "/\(run.id).idx")
        #expect(try shown(try #require(try catalog.detailedSnapshot(id: run.id)).state) == expected)
        #expect(catalog.snapshot(id: run.id).map { $0.details == nil } == true)

        // Growing again: the details come back first, then the new line is folded on top.
        appendLine(emitLine("after.end", "more"), to: run.file)
        try await waitFor(5, "the new line") { catalog.snapshot(id: run.id)?.state.lineCount == run.lines.count + 1 }
        let grown = await startCatalog([run.tmp.path])
        defer { grown.stop() }
        let live = try #require(try catalog.detailedSnapshot(id: run.id))
        #expect(try shown(live.state) == shown(try #require(grown.snapshot(id: run.id)?.detailed).state))
        #expect(live.state.recentEvents.last?.topic == "after.end")
    }

    @Test("a live run keeps its details in memory")
    func liveRunsKeepDetails() async throws {
        let tmp = TempDir()
        let indexDirectory = tmp.path + "/index"
        let (file, lock) = startLiveRun(
            in: tmp, named: "events-20260205-100000.jsonl", sampleLines(iterations: 5).dropLast().joined(separator: "\n") + "\n"
        )
        defer { close(lock) }
        let id = RunID.make(forPath: file)
        let catalog = await startCatalog([tmp.path], indexDirectory: indexDirectory)
        defer { catalog.stop() }
        #expect(catalog.snapshot(id: id)?.isLive == true)
        try await waitFor(5, "the index entry") { FileManager.default.fileExists(atPath: indexDirectory + "/\(id).idx") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(catalog.snapshot(id: id).map { $0.details != nil } == true)
        #expect(catalog.snapshot(id: id)?.details?.hatFlow.isEmpty == false)
    }

    @Test("the first pass folds many runs on several threads exactly as one thread does, and each run reads on from there", arguments: [Int.max, 0])
    func parallelFirstPass(scanThreshold: Int) async throws {
        let tmp = TempDir()
        var files: [String] = []
        for n in 0..<24 {
            var lines = sampleLines(iterations: 10 + n * 37)
            if n % 5 == 0 { lines.insert(String(repeating: "x", count: 300), at: 3) }  // longer than the limit below
            // Every third run ends in a line still being written (no newline yet).
            let text = lines.joined(separator: "\n") + (n % 3 == 0 ? "\n{\"topic\":\"half" : "\n")
            files.append(tmp.file("w\(n % 4)/.ralph/events-202602\(String(format: "%02d", n + 1))-100000.jsonl", text))
        }
        var configuration = RunCatalog.Configuration(roots: [tmp.path])
        configuration.maxLineBytes = 256
        configuration.pollInterval = 0.2
        // Every run folded before the catalog is ready, or every run listed from a scan and folded after.
        configuration.scanThreshold = scanThreshold
        let recorder = ChangeRecorder()
        let catalog = RunCatalog(configuration: configuration)
        catalog.start(observer: recorder)
        await catalog.waitUntilReady()
        defer { catalog.stop() }
        #expect(scanThreshold == 0 ? catalog.startupReport()?.scanned == 24 : catalog.startupReport()?.folded == 24)
        for file in files {
            let id = RunID.make(forPath: file)
            #expect(await catalog.waitUntilFolded(id: id, timeout: .seconds(20)))
            let snapshot = try #require(catalog.snapshot(id: id))
            let status = try #require(FileSystem.status(file))
            let alone = try EventFileReader.foldState(
                file: file, device: status.device, inode: status.inode, lines: snapshot.state.lineCount, maxLineBytes: 256
            )
            #expect(try shown(try #require(snapshot.detailed).state) == shown(alone))
            #expect(snapshot.checkpoints.count == (snapshot.state.lineCount - 1) / RunSnapshot.checkpointInterval + 1)
        }
        // The half-written line completes: it gets the next id.
        let half = files[0]
        let id = RunID.make(forPath: half)
        let before = try #require(catalog.snapshot(id: id)).state.lineCount
        let handle = try #require(FileHandle(forWritingAtPath: half))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\"}\n".utf8))
        try handle.close()
        try await waitFor(5, "the completed line") { recorder.appendedIDs(id) == [before + 1] }
        #expect(catalog.snapshot(id: id)?.details?.recentEvents.last?.topic == "half")
    }

    @Test("an index directory that cannot be used leaves the catalog working without an index")
    func unusableIndexDirectory() async throws {
        let tmp = TempDir()
        let notADirectory = tmp.file("data/run-index", "a file where the index directory should be")
        let lines = sampleLines(iterations: 5)
        let file = tmp.file("p/.ralph/events-20260205-100000.jsonl", lines.joined(separator: "\n") + "\n")
        let catalog = await startCatalog([tmp.path + "/p"], indexDirectory: notADirectory)
        #expect(catalog.startupReport()?.folded == 1)
        let snapshot = try #require(catalog.snapshot(id: RunID.make(forPath: file)))
        #expect(snapshot.state.lineCount == lines.count && snapshot.details != nil)
        await catalog.stopAndWait()
        #expect(FileSystem.status(notADirectory)?.isDirectory == false)
    }

    @Test("entries of runs that are gone are dropped at start")
    func orphansDropped() async throws {
        let tmp = TempDir()
        let indexDirectory = tmp.path + "/index"
        let file = tmp.file("p/.ralph/events-20260205-100000.jsonl", sampleLines(iterations: 2).joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let first = await startCatalog([tmp.path], indexDirectory: indexDirectory)
        await first.stopAndWait()
        #expect(FileManager.default.fileExists(atPath: indexDirectory + "/\(id).idx"))
        try FileManager.default.removeItem(atPath: file)
        let second = await startCatalog([tmp.path], indexDirectory: indexDirectory)
        defer { second.stop() }
        #expect(second.snapshots().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: indexDirectory + "/\(id).idx"))
    }
}
