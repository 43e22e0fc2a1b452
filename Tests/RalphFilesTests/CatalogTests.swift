import Foundation
import RalphAPI
import RalphFiles
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Run catalog on real files")
struct CatalogTests {
    @Test("appends are announced in order with line-number ids, through inotify and through polling", arguments: [true, false])
    func appendsAnnounced(inotify: Bool) async throws {
        let tmp = TempDir()
        let file = tmp.file("p/.ralph/events-20260101-000000.jsonl", emitLine("task.start", "go") + "\n")
        let id = RunID.make(forPath: file)
        let recorder = ChangeRecorder()
        let catalog = await startCatalog([tmp.path], inotify: inotify, observer: recorder)
        defer { catalog.stop() }
        #expect(recorder.all.first == .added(id, lines: 1))
        for n in 2...50 { appendLine(emitLine("step", "\(n)"), to: file) }
        try await waitFor(5, "49 appended events") { recorder.appendedIDs(id).count == 49 }
        #expect(recorder.appendedIDs(id) == Array(2...50))
        #expect(catalog.snapshot(id: id)?.state.eventCount == 50)
    }

    @Test("runs created later are added; deleted runs are removed; new workspaces are found", arguments: [true, false])
    func addAndRemove(inotify: Bool) async throws {
        let tmp = TempDir()
        let recorder = ChangeRecorder()
        let catalog = await startCatalog([tmp.path], inotify: inotify, observer: recorder)
        defer { catalog.stop() }
        #expect(catalog.snapshots().isEmpty)
        let file = tmp.file("new-project/.ralph/events-20260101-000000.jsonl", emitLine("task.start", "x") + "\n")
        let id = RunID.make(forPath: file)
        try await waitFor(5, "the new run") { catalog.snapshot(id: id) != nil }
        try FileManager.default.removeItem(atPath: file)
        // The snapshot goes first, then observers hear of it: wait for both.
        try await waitFor(5, "the removal") { catalog.snapshot(id: id) == nil && recorder.all.contains(.removed(id)) }
    }

    @Test("liveness follows the loop.lock flock and current-events; the last lines come before the end")
    func livenessTransitions() async throws {
        let tmp = TempDir()
        let (file, lock) = startLiveRun(in: tmp, emitLine("task.start", "x") + "\n")
        let id = RunID.make(forPath: file)
        let recorder = ChangeRecorder()
        let catalog = await startCatalog([tmp.path], observer: recorder)
        defer { catalog.stop() }
        #expect(catalog.snapshot(id: id)?.isLive == true)
        #expect(catalog.snapshot(id: id)?.mode == .live)

        appendLine(emitLine("last", "words"), to: file)
        close(lock)  // the loop exits
        try await waitFor(5, "the run to be complete") { catalog.snapshot(id: id)?.isLive == false }
        let entries = recorder.all
        let appendedIndex = try #require(entries.firstIndex(of: .appended(id, ids: [2])))
        let endedIndex = try #require(entries.lastIndex(of: .updated(id, live: false)))
        #expect(entries.filter { $0 == .updated(id, live: false) }.count == 1, "the run ended once: \(entries)")
        #expect(appendedIndex < endedIndex)
        let snapshot = try #require(catalog.snapshot(id: id))
        #expect(snapshot.status == .stopped)
        #expect(snapshot.stopReason?.reason == "exited")
    }

    @Test("a new run replaces the current one: the old run becomes complete")
    func newerRunTakesOver() async throws {
        let tmp = TempDir()
        let (first, lock) = startLiveRun(in: tmp, emitLine("task.start", "1") + "\n")
        defer { close(lock) }
        let catalog = await startCatalog([tmp.path])
        defer { catalog.stop() }
        #expect(catalog.snapshot(id: RunID.make(forPath: first))?.isLive == true)
        let second = tmp.file("p/.ralph/events-20260102-000000.jsonl", emitLine("task.start", "2") + "\n")
        tmp.file("p/.ralph/current-events", ".ralph/events-20260102-000000.jsonl")
        try await waitFor(5, "the second run to be live and the first complete") {
            catalog.snapshot(id: RunID.make(forPath: second))?.isLive == true && catalog.snapshot(id: RunID.make(forPath: first))?.isLive == false
        }
        #expect(catalog.snapshot(id: RunID.make(forPath: first))?.stopReason?.message?.contains("newer run") == true)
    }

    @Test("truncation and replacement reset the run and are announced")
    func resets() async throws {
        let tmp = TempDir()
        let file = tmp.file("p/.ralph/events-20260101-000000.jsonl", (1...5).map { emitLine("e", "\($0)") }.joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let recorder = ChangeRecorder()
        let catalog = await startCatalog([tmp.path], observer: recorder)
        defer { catalog.stop() }
        #expect(catalog.snapshot(id: id)?.state.lineCount == 5)
        let replacement = tmp.file("p/new.tmp", emitLine("r", "1") + "\n" + emitLine("r", "2") + "\n")
        #expect(rename(replacement, file) == 0)
        try await waitFor(5, "the reset") { recorder.all.contains(.reset(id, lines: 2)) }
        #expect(catalog.snapshot(id: id)?.generation == 1)
        #expect(truncate(file, 0) == 0)
        appendLine(emitLine("t", "1"), to: file)
        try await waitFor(5, "the second reset and the new line") {
            catalog.snapshot(id: id)?.generation == 2 && catalog.snapshot(id: id)?.state.lineCount == 1
        }
    }

    @Test("a file rewritten in place past its old length is still noticed and read from the start", arguments: [true, false])
    func rewrittenInPlace(inotify: Bool) async throws {
        let tmp = TempDir()
        let file = tmp.file("p/.ralph/events-20260101-000000.jsonl", emitLine("old", "1") + "\n")
        let id = RunID.make(forPath: file)
        let catalog = await startCatalog([tmp.path], inotify: inotify)
        defer { catalog.stop() }
        #expect(catalog.snapshot(id: id)?.state.lineCount == 1)
        // Same inode, longer content, different first bytes: what an editor's in-place save does.
        let handle = FileHandle(forWritingAtPath: file)!
        try handle.truncate(atOffset: 0)
        handle.write(Data(((1...3).map { emitLine("new", "rewritten \($0)") }.joined(separator: "\n") + "\n").utf8))
        try handle.close()
        try await waitFor(5, "the rewrite to be read") {
            catalog.snapshot(id: id)?.state.lineCount == 3 && catalog.snapshot(id: id)?.details?.recentEvents.first?.topic == "new"
        }
    }

    @Test("id resolution: full ids, unique prefixes of 4+ hex chars, ambiguity and junk")
    func resolution() async throws {
        let tmp = TempDir()
        var files: [String] = []
        for n in 0..<40 { files.append(tmp.file("p\(n)/.ralph/events-20260101-000000.jsonl", emitLine("t", "\(n)") + "\n")) }
        let catalog = await startCatalog([tmp.path])
        defer { catalog.stop() }
        let ids = files.map { RunID.make(forPath: $0) }
        #expect(catalog.resolve(ids[0]) == .found(ids[0]))
        #expect(catalog.resolve(ids[0].uppercased()) == .found(ids[0]))
        let shortest = (4...16).first { n in ids.filter { $0.hasPrefix(ids[3].prefix(n)) }.count == 1 }!
        #expect(catalog.resolve(String(ids[3].prefix(shortest))) == .found(ids[3]))
        if case .notFound(let reason) = catalog.resolve("abc") { #expect(reason.contains("at least 4")) } else { Issue.record("short prefix resolved") }
        if case .notFound = catalog.resolve("../etc/passwd") {} else { Issue.record("path-like id resolved") }
        if case .notFound = catalog.resolve("") {} else { Issue.record("empty id resolved") }
        if case .notFound = catalog.resolve("0123456789abcdef0") {} else { Issue.record("17-char id resolved") }
        // An ambiguous prefix: the first hex digit is shared by several of 40 ids for sure; widen to 4 chars if possible.
        let groups = Dictionary(grouping: ids) { String($0.prefix(4)) }
        if let shared = groups.first(where: { $0.value.count > 1 }) {
            #expect(catalog.resolve(shared.key) == .ambiguous(shared.value.sorted()))
        }
    }

    @Test("a line that is still being written is not a line until its newline")
    func partialLineHeld() async throws {
        let tmp = TempDir()
        let file = tmp.file("p/.ralph/events-20260101-000000.jsonl", "")
        let id = RunID.make(forPath: file)
        let recorder = ChangeRecorder()
        let catalog = await startCatalog([tmp.path], observer: recorder)
        defer { catalog.stop() }
        let line = Array(emitLine("slow", "writer").utf8)
        let handle = FileHandle(forWritingAtPath: file)!
        handle.write(Data(line[0..<7]))
        try await Task.sleep(for: .milliseconds(300))
        #expect(catalog.snapshot(id: id)?.state.lineCount == 0)
        handle.write(Data(line[7...] + [0x0A]))
        try handle.close()
        try await waitFor(5, "the completed line") { recorder.appendedIDs(id) == [1] }
    }
}
