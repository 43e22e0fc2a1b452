import Foundation
import RalphAPI
import Synchronization
import Testing

@testable import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// A catalog that lists every run from a fast scan at its first discovery (`scanThreshold` 0), its background folds
/// held until released when `holds`.
func startScanningCatalog(
    _ roots: [String], holds: Bool, indexDirectory: String? = nil, observer: ChangeRecorder? = nil
) async -> RunCatalog {
    var configuration = RunCatalog.Configuration(roots: roots)
    configuration.indexDirectory = indexDirectory
    configuration.scanThreshold = 0
    configuration.holdsBackgroundFolds = holds
    configuration.pollInterval = 0.2
    configuration.rescanInterval = 0.5
    configuration.livenessInterval = 0.1
    let catalog = RunCatalog(configuration: configuration)
    catalog.start(observer: observer)
    await catalog.waitUntilReady()
    return catalog
}

/// The fold of a whole run file, as a first start without a scan would have it.
func foldedFile(_ file: String) throws -> (state: RunState, checkpoints: [Int]) {
    let fd = open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw TestError("cannot open \(file)") }
    defer { close(fd) }
    let fold = try EventFileReader.fold(fd: fd, lines: nil, maxLineBytes: 64 << 20)
    return (fold.state, fold.checkpoints)
}

func encodedState(_ state: RunState) -> [UInt8] {
    var writer = BinaryWriter()
    state.encode(into: &writer)
    return writer.bytes
}

@Suite("Run catalog: the first list from a fast scan, the details from a background fold")
struct CatalogFastListTests {
    static let name = "p/.ralph/events-20260205-100000.jsonl"

    @Test("a run is listed from its scan with the fold's values before it is folded, then adopts the fold")
    func listedThenFolded() async throws {
        let tmp = TempDir()
        let file = tmp.file(Self.name, mixedRun(iterations: 300, seed: 5).joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let catalog = await startScanningCatalog([tmp.path], holds: true, indexDirectory: tmp.path + "/index")
        defer { catalog.stop() }
        let folded = try foldedFile(file)

        let listed = try #require(catalog.snapshot(id: id))
        #expect(listed.foldPending)
        #expect(listed.details == nil)
        #expect(catalog.startupReport()?.scanned == 1)
        #expect(listed.summary.listDifferences(from: folded.state.summary) == [])
        #expect(listed.checkpoints == folded.checkpoints)
        #expect(catalog.isFoldPending(id: id))
        // Held: a caller's wait ends with its timeout, and says the run is still being folded.
        #expect(await catalog.waitUntilFolded(id: id, timeout: .milliseconds(100)) == false)

        catalog.releaseBackgroundFolds()
        #expect(await catalog.waitUntilFolded(id: id, timeout: .seconds(20)))
        let adopted = try #require(catalog.snapshot(id: id))
        #expect(!adopted.foldPending)
        #expect(adopted.summary.listDifferences(from: folded.state.summary) == [])
        let detailed = try #require(try catalog.detailedSnapshot(id: id))
        #expect(encodedState(detailed.state) == encodedState(folded.state))
        #expect(FileManager.default.fileExists(atPath: tmp.path + "/index/\(id).idx"))
    }

    @Test("lines appended while a run awaits its fold are announced, in order and once each, as soon as it is adopted")
    func appendedWhileAwaiting() async throws {
        let tmp = TempDir()
        let lines = mixedRun(iterations: 200, seed: 6)
        let file = tmp.file(Self.name, lines.joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let recorder = ChangeRecorder()
        let catalog = await startScanningCatalog([tmp.path], holds: true, observer: recorder)
        defer { catalog.stop() }
        #expect(recorder.all.first == .added(id, lines: lines.count))
        for n in 1...30 { appendLine(emitLine("after.scan", "\(n)"), to: file) }
        try await Task.sleep(for: .milliseconds(400))  // several polls and inotify events: nothing is read yet
        #expect(recorder.appendedIDs(id) == [])
        #expect(catalog.snapshot(id: id)?.summary.lineCount == lines.count)

        catalog.releaseBackgroundFolds()
        try await waitFor(20, "the appended lines") { recorder.appendedIDs(id).count == 30 }
        #expect(recorder.appendedIDs(id) == Array((lines.count + 1)...(lines.count + 30)))
        let detailed = try #require(try catalog.detailedSnapshot(id: id))
        #expect(encodedState(detailed.state) == encodedState(try foldedFile(file).state))
    }

    @Test("a catch-up asked while the run awaits its fold returns once it is folded and read on")
    func catchUpWaitsForTheFold() async throws {
        let tmp = TempDir()
        let lines = mixedRun(iterations: 100, seed: 8)
        let file = tmp.file(Self.name, lines.joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let catalog = await startScanningCatalog([tmp.path], holds: true)
        defer { catalog.stop() }
        appendLine(emitLine("late", "x"), to: file)
        let done = Mutex(false)
        let caught = Task {
            await catalog.catchUp(id: id)
            done.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(done.withLock { $0 } == false)
        catalog.releaseBackgroundFolds()
        await caught.value
        #expect(catalog.snapshot(id: id)?.summary.lineCount == lines.count + 1)
        #expect(catalog.snapshot(id: id)?.foldPending == false)
    }

    @Test("the index the background folds write lets the next start restore every run without reading a line")
    func restartFromTheirIndex() async throws {
        let tmp = TempDir()
        for n in 0..<6 { tmp.file("w\(n)/.ralph/events-2026020\(n)-100000.jsonl", mixedRun(iterations: 40 + n, seed: UInt64(n)).joined(separator: "\n") + "\n") }
        let index = tmp.path + "/index"
        let first = await startScanningCatalog([tmp.path], holds: false, indexDirectory: index)
        #expect(first.startupReport()?.scanned == 6)
        for run in first.snapshots() { #expect(await first.waitUntilFolded(id: run.id, timeout: .seconds(20))) }
        await first.stopAndWait()

        let second = await startScanningCatalog([tmp.path], holds: true, indexDirectory: index)
        defer { second.stop() }
        #expect(second.startupReport()?.restoredFromIndex == 6)
        #expect(second.startupReport()?.scanned == 0)
        #expect(second.startupReport()?.linesRead == 0)
        for run in second.snapshots() {
            #expect(!run.foldPending)
            #expect(run.summary.listDifferences(from: try foldedFile(run.location.file).state.summary) == [])
        }
    }

    @Test("stopping while folds are held or under way returns; runs never folded are scanned again at the next start")
    func stopWhileFolding() async throws {
        let tmp = TempDir()
        for n in 0..<4 { tmp.file("w\(n)/.ralph/events-2026020\(n)-100000.jsonl", mixedRun(iterations: 300, seed: UInt64(n)).joined(separator: "\n") + "\n") }
        let index = tmp.path + "/index"
        let held = await startScanningCatalog([tmp.path], holds: true, indexDirectory: index)
        let waiting = Task { await held.waitUntilFolded(id: held.snapshots()[0].id, timeout: .seconds(30)) }
        await held.stopAndWait()
        _ = await waiting.value  // answered when the catalog stopped, not after 30 s
        let unheld = await startScanningCatalog([tmp.path], holds: false, indexDirectory: index)
        #expect(unheld.startupReport()?.scanned == 4)
        await unheld.stopAndWait()  // maybe in the middle of a fold
        let again = await startScanningCatalog([tmp.path], holds: false, indexDirectory: index)
        defer { again.stop() }
        #expect((again.startupReport()?.restoredFromIndex ?? 0) + (again.startupReport()?.scanned ?? 0) == 4)
    }

    @Test("a file replaced while its run awaits its fold is read again from its start")
    func replacedWhileAwaiting() async throws {
        let tmp = TempDir()
        let file = tmp.file(Self.name, mixedRun(iterations: 100, seed: 11).joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let recorder = ChangeRecorder()
        let catalog = await startScanningCatalog([tmp.path], holds: true, observer: recorder)
        defer { catalog.stop() }
        let replacement = mixedRun(iterations: 20, seed: 12)
        let temporary = tmp.file("replacement.tmp", replacement.joined(separator: "\n") + "\n")
        #expect(rename(temporary, file) == 0)
        catalog.releaseBackgroundFolds()
        // The snapshot shows the new file just before its reset is announced: wait for both.
        try await waitFor(20, "the replacement read and its reset announced") {
            catalog.snapshot(id: id)?.summary.lineCount == replacement.count && catalog.snapshot(id: id)?.foldPending == false
                && recorder.all.contains { if case .reset(id, _) = $0 { return true } else { return false } }
        }
        let detailed = try #require(try catalog.detailedSnapshot(id: id))
        #expect(encodedState(detailed.state) == encodedState(try foldedFile(file).state))
    }

    @Test("a live run whose loop ends while it awaits its fold gets its last lines announced before its end")
    func liveRunEndsWhileAwaiting() async throws {
        let tmp = TempDir()
        // No loop.terminate: the loop runs until its lock goes.
        let lines = [taskStart("planner")] + (1...2_000).map { record(t($0), $0 / 10 + 1, "builder", "step", triggered: "reviewer") }
        let (file, lock) = startLiveRun(in: tmp, lines.joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let recorder = ChangeRecorder()
        let catalog = await startScanningCatalog([tmp.path], holds: true, observer: recorder)
        defer { catalog.stop() }
        #expect(catalog.snapshot(id: id)?.isLive == true)
        appendLine(emitLine("last", "words"), to: file)
        close(lock)  // the loop exits while the fold is still held
        try await waitFor(10, "the run to end") { catalog.snapshot(id: id)?.isLive == false && catalog.snapshot(id: id)?.foldPending == false }
        let entries = recorder.all
        let appended = try #require(entries.firstIndex(of: .appended(id, ids: [lines.count + 1])))
        if let ended = entries.lastIndex(of: .updated(id, live: false)) { #expect(appended < ended) }
        #expect(catalog.snapshot(id: id)?.summary.lineCount == lines.count + 1)
    }

    @Test("a run removed while it awaits its fold: whoever waits for it is answered at once")
    func removedWhileAwaiting() async throws {
        let tmp = TempDir()
        let file = tmp.file(Self.name, mixedRun(iterations: 50, seed: 14).joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let catalog = await startScanningCatalog([tmp.path], holds: true)
        defer { catalog.stop() }
        let started = Date()
        let waiting = Task { await catalog.waitUntilFolded(id: id, timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        try FileManager.default.removeItem(atPath: file)
        #expect(await waiting.value)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(catalog.snapshot(id: id) == nil)
    }

    @Test("many runs, some small and some large, scanned and folded on every core, each ends as its whole-file fold")
    func manyRuns() async throws {
        let tmp = TempDir()
        var files: [String] = []
        for n in 0..<16 {
            let lines = n % 4 == 0 ? [] : mixedRun(iterations: n * 25, seed: UInt64(100 + n))
            files.append(tmp.file("w\(n)/.ralph/events-202602\(10 + n)-100000.jsonl", lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")))
        }
        let catalog = await startScanningCatalog([tmp.path], holds: false, indexDirectory: tmp.path + "/index")
        defer { catalog.stop() }
        #expect(catalog.startupReport()?.scanned == 16)
        for file in files {
            let id = RunID.make(forPath: file)
            let folded = try foldedFile(file)
            #expect(catalog.snapshot(id: id)?.summary.listDifferences(from: folded.state.summary) == [])
            #expect(await catalog.waitUntilFolded(id: id, timeout: .seconds(20)))
            let detailed = try #require(try catalog.detailedSnapshot(id: id))
            #expect(encodedState(detailed.state) == encodedState(folded.state), "\(file)")
        }
    }
}
