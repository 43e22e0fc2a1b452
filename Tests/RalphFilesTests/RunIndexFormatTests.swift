import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// What a client sees of a run: its list entry and its detail view, as JSON (so two starts can be compared).
private func views(_ catalog: RunCatalog, _ id: String, at now: Date) throws -> (list: String, detail: String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let snapshot = try #require(catalog.snapshot(id: id))
    let detailed = try #require(try catalog.detailedSnapshot(id: id))
    return (
        String(decoding: try encoder.encode(snapshot.session(paused: false, now: now)), as: UTF8.self),
        String(decoding: try encoder.encode(detailed.detail(paused: false, now: now)), as: UTF8.self)
    )
}

/// The run file's entry as the previous layout (version 1) wrote it: "RMIDX", an FNV-1a checksum, then one body.
private func versionOneEntry(of run: IndexedRun) throws -> [UInt8] {
    let status = try #require(FileSystem.status(run.file))
    let bytes = Array(try #require(FileManager.default.contents(atPath: run.file)))
    let (state, checkpoints) = try foldedFile(run.file)
    var w = BinaryWriter()
    w.write(1)
    w.write(RunState.encodingVersion)
    w.write(run.file)
    w.write(status.device)
    w.write(status.inode)
    w.write(bytes.count)
    w.write(bytes: Array(bytes.prefix(RunTail.headSize)))
    w.write(bytes: Array(bytes.suffix(RunIndexStore.tailSize)))
    w.write(checkpoints.count)
    var previous = 0
    for c in checkpoints {
        w.write(c - previous)
        previous = c
    }
    state.encode(into: &w)
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in w.bytes {
        h ^= UInt64(b)
        h = h &* 0x100_0000_01b3
    }
    var out = Array("RMIDX".utf8)
    var sum = h.littleEndian
    withUnsafeBytes(of: &sum) { out.append(contentsOf: $0) }
    return out + w.bytes
}

@Suite("Run index layout: summary first, details read when needed")
struct RunIndexFormatTests {
    @Test("the word-wise checksum notices any one changed byte, and any change of length")
    func checksum() {
        var x: UInt64 = 7
        for length in 0..<80 {
            let bytes = (0..<length).map { _ -> UInt8 in
                x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: x >> 56)
            }
            let sum = RunIndexStore.checksum(bytes)
            #expect(RunIndexStore.checksum(bytes + [0]) != sum, "length \(length) + a zero byte")
            for position in 0..<length {
                for bit in [0, 3, 7] {
                    var changed = bytes
                    changed[position] ^= UInt8(1 << bit)
                    #expect(RunIndexStore.checksum(changed) != sum, "length \(length), byte \(position), bit \(bit)")
                }
            }
        }
    }

    @Test("an entry reads back whole, or as its summary from its first bytes; a truncated one is rejected either way")
    func summaryFromPrefix() throws {
        let run = IndexedRun(iterations: 50)
        let folded = try foldedFile(run.file)
        var state = folded.state
        let checkpoints = folded.checkpoints
        // A task name far longer than the first read of an entry: its summary is read in two steps.
        state.summary.taskName = String(repeating: "long task ", count: 1_000)
        let entry = RunIndexStore.Entry(
            file: run.file, device: 1, inode: 2, offset: 10, head: Array("{\"ts\"".utf8), tail: Array("}\n".utf8), checkpoints: checkpoints, state: state
        )
        let bytes = RunIndexStore.encode(entry)
        let whole = try RunIndexStore.decode(bytes)
        #expect(encodedState(whole.state) == encodedState(state))
        #expect(whole.checkpoints == checkpoints && whole.offset == 10 && whole.head == entry.head && whole.tail == entry.tail)
        let front = try RunIndexStore.decodeFront(bytes, fileSize: bytes.count)
        #expect(front.detailsStart > RunIndexStore.summaryReadSize)
        let listed = try RunIndexStore.decodeSummary(Array(bytes[0..<front.detailsStart]), fileSize: bytes.count)
        #expect(listed.summary.taskName == state.taskName && listed.summary.eventCount == state.eventCount)
        #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decodeSummary(Array(bytes[0..<front.detailsStart - 1]), fileSize: bytes.count) }
        #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decodeSummary(bytes, fileSize: bytes.count + 1) }
        #expect(throws: RunIndexStore.IndexError.self) { try RunIndexStore.decode(Array(bytes.dropLast())) }

        // Through the store: the summary alone, the whole entry, and nothing for an entry cut anywhere.
        let store = RunIndexStore(directory: run.indexDirectory)
        try store.prepare()
        try store.save(entry, id: "e")
        #expect(try store.loadSummary(id: "e")?.summary.taskName == state.taskName)
        #expect(try store.load(id: "e").map { encodedState($0.state) } == encodedState(state))
        #expect(try store.loadSummary(id: "none") == nil)
        for cut in [1, 9, RunIndexStore.headerSize + 5, front.detailsStart, bytes.count - 1] {
            try Data(bytes[0..<cut]).write(to: URL(fileURLWithPath: store.path(for: "e")))
            #expect(throws: RunIndexStore.IndexError.self, "cut at \(cut)") { try store.loadSummary(id: "e") }
            #expect(throws: RunIndexStore.IndexError.self, "cut at \(cut)") { try store.load(id: "e") }
        }
    }

    @Test("a restart lists a finished run from its entry's summary and shows the same list and details as the first start")
    func restartShowsTheSame() async throws {
        let run = IndexedRun(iterations: 700)
        let tmp = run.tmp
        // A run whose loop still runs: restored with its details in memory.
        let (liveFile, lock) = startLiveRun(in: tmp, named: "events-20260205-110000.jsonl", sampleLines(iterations: 30).dropLast().joined(separator: "\n") + "\n")
        defer { close(lock) }
        let liveID = RunID.make(forPath: liveFile)
        let now = Date()

        let first = await startCatalog([tmp.path], indexDirectory: run.indexDirectory)
        #expect(await first.waitUntilFolded(id: run.id, timeout: .seconds(20)))
        let before = try views(first, run.id, at: now)
        let liveBefore = try views(first, liveID, at: now)
        await first.stopAndWait()

        let second = await startCatalog([tmp.path], indexDirectory: run.indexDirectory)
        defer { second.stop() }
        #expect(second.startupReport()?.restoredFromIndex == 2)
        #expect(second.startupReport()?.linesRead == 0)
        let listed = try #require(second.snapshot(id: run.id))
        #expect(listed.details == nil && !listed.foldPending)
        #expect(listed.checkpoints.count == 3)
        #expect(second.snapshot(id: liveID)?.details != nil)
        let after = try views(second, run.id, at: now)
        #expect(after.list == before.list)
        #expect(after.detail == before.detail)
        #expect(try views(second, liveID, at: now) == liveBefore)
        // Reading the details back does not keep them.
        #expect(second.snapshot(id: run.id)?.details == nil)

        // Lines appended after the restart: the details come back from the entry, then the lines are folded on top.
        appendLine(emitLine("after.restart", "x"), to: run.file)
        try await waitFor(5, "the appended line") { second.snapshot(id: run.id)?.state.lineCount == run.lines.count + 1 }
        let fresh = await startCatalog([tmp.path])
        defer { fresh.stop() }
        #expect(await fresh.waitUntilFolded(id: run.id, timeout: .seconds(20)))
        #expect(try shown(try #require(try second.detailedSnapshot(id: run.id)).state) == shown(try #require(fresh.snapshot(id: run.id)?.detailed).state))
    }

    @Test("an index of the previous layout is ignored, never misread, and written again in the current one")
    func previousVersionRebuilt() async throws {
        let run = IndexedRun(iterations: 30)
        let store = RunIndexStore(directory: run.indexDirectory)
        try store.prepare()
        try Data(try versionOneEntry(of: run)).write(to: URL(fileURLWithPath: store.path(for: run.id)))
        #expect(throws: RunIndexStore.IndexError.self) { try store.loadSummary(id: run.id) }

        let now = Date()
        let first = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
        #expect(first.startupReport()?.restoredFromIndex == 0)
        let fresh = await startCatalog([run.tmp.path], indexDirectory: run.tmp.path + "/reference-index")
        defer { fresh.stop() }
        #expect(try views(first, run.id, at: now) == views(fresh, run.id, at: now))
        await first.stopAndWait()

        let written = try #require(try store.load(id: run.id))
        #expect(written.state.lineCount == run.lines.count)
        let second = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
        defer { second.stop() }
        #expect(second.startupReport()?.restoredFromIndex == 1)
        #expect(try views(second, run.id, at: now) == views(fresh, run.id, at: now))
    }

    @Test("damaged details, unseen by a restart that lists the run from its summary, are noticed when read: shown from the file, and the entry written again")
    func damagedDetailsRepaired() async throws {
        let run = IndexedRun(iterations: 60)
        let store = RunIndexStore(directory: run.indexDirectory)
        let path = store.path(for: run.id)
        let now = Date()
        // Folded from the file by a catalog with an index of its own (a finished run's list then shows no trigger).
        let fresh = await startCatalog([run.tmp.path], indexDirectory: run.tmp.path + "/reference-index")
        #expect(fresh.startupReport()?.restoredFromIndex == 0)
        defer { fresh.stop() }
        let expected = try views(fresh, run.id, at: now)

        func damageDetails() async throws {
            let catalog = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
            await catalog.stopAndWait()
            var bytes = Array(try #require(FileManager.default.contents(atPath: path)))
            bytes[bytes.count - 10] ^= 0x5A
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try store.loadSummary(id: run.id) != nil)
            #expect(throws: RunIndexStore.IndexError.self) { try store.load(id: run.id) }
        }

        // Read by a client: the details come from the file, and the catalog writes the entry again.
        try await damageDetails()
        let catalog = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
        #expect(catalog.startupReport()?.restoredFromIndex == 1)
        #expect(try views(catalog, run.id, at: now) == expected)
        try await waitFor(5, "the entry written again") { (try? store.load(id: run.id)) != nil }
        try await waitFor(5, "the details dropped again") { catalog.snapshot(id: run.id)?.details == nil }
        #expect(try views(catalog, run.id, at: now) == expected)
        await catalog.stopAndWait()

        // Needed to fold appended lines: folded from the file instead, then indexed again.
        try await damageDetails()
        let growing = await startCatalog([run.tmp.path], indexDirectory: run.indexDirectory)
        appendLine(emitLine("after.damage", "x"), to: run.file)
        try await waitFor(5, "the appended line") { growing.snapshot(id: run.id)?.state.lineCount == run.lines.count + 1 }
        await growing.stopAndWait()
        let rewritten = try #require(try store.load(id: run.id))
        let grown = await startCatalog([run.tmp.path])
        defer { grown.stop() }
        #expect(try shown(rewritten.state) == shown(try #require(grown.snapshot(id: run.id)?.detailed).state))
    }
}
