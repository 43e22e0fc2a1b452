import Foundation
import RalphAPI
import RalphFiles
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A canonical temporary directory, removed at deinit.
final class TempDir: Sendable {
    let path: String

    init() {
        let raw = FileManager.default.temporaryDirectory.path + "/rf-test-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
        path = FileSystem.realPath(raw)!
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Creates `relative` as a directory and returns its path.
    @discardableResult
    func dir(_ relative: String) -> String {
        let p = path + "/" + relative
        try! FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    /// Writes a file (creating directories) and returns its path.
    @discardableResult
    func file(_ relative: String, _ text: String = "") -> String {
        let p = path + "/" + relative
        try! FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }

    /// Every entry below the directory with its text (`<dir>` for a directory or unreadable file): taken before and
    /// after an operation, it shows that nothing there was written.
    func contents() -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let relative = enumerator?.nextObject() as? String {
            result[relative] = (try? String(contentsOfFile: path + "/" + relative, encoding: .utf8)) ?? "<dir>"
        }
        return result
    }
}

/// An event line as `ralph emit` writes it.
func emitLine(_ topic: String, _ payload: String) -> String {
    String(decoding: EventFileAppender.emitLine(topic: topic, payload: .string(payload)), as: UTF8.self)
}

func appendLine(_ line: String, to file: String) {
    try! EventFileAppender.append(line: Array(line.utf8), to: file)
}

/// Makes `text` the current run of workspace `p` under `tmp` as a running ralph loop does: writes
/// `p/.ralph/<name>`, points `current-events` at it and holds the `loop.lock` flock. Closing the returned descriptor
/// is the loop exiting.
func startLiveRun(in tmp: TempDir, named name: String = "events-20260101-000000.jsonl", _ text: String) -> (file: String, lock: Int32) {
    let file = tmp.file("p/.ralph/" + name, text)
    tmp.file("p/.ralph/current-events", ".ralph/" + name)
    let lock = open(tmp.file("p/.ralph/loop.lock"), O_RDWR)
    #expect(flock(lock, LOCK_EX | LOCK_NB) == 0, "the loop.lock flock")
    return (file, lock)
}

/// Records catalog changes for assertions.
final class ChangeRecorder: RunCatalogObserver {
    enum Entry: Equatable {
        case added(String, lines: Int)
        case appended(String, ids: [Int])
        case updated(String, live: Bool)
        case reset(String, lines: Int)
        case removed(String)
    }

    private let entries = Mutex<[Entry]>([])

    func catalogDidChange(_ change: RunCatalog.Change) {
        let entry: Entry
        switch change {
        case .added(let s): entry = .added(s.id, lines: s.state.lineCount)
        case .appended(let s, let events): entry = .appended(s.id, ids: events.map(\.id))
        case .updated(let s): entry = .updated(s.id, live: s.isLive)
        case .reset(let s): entry = .reset(s.id, lines: s.state.lineCount)
        case .removed(let id): entry = .removed(id)
        }
        entries.withLock { $0.append(entry) }
    }

    var all: [Entry] { entries.withLock { $0 } }

    /// Ids delivered as appended for `run`, in order.
    func appendedIDs(_ run: String) -> [Int] {
        all.flatMap { entry -> [Int] in
            if case .appended(let id, let ids) = entry, id == run { return ids }
            return []
        }
    }
}

/// Polls until `condition` holds (or fails after `seconds`).
func waitFor(_ seconds: Double = 5, _ what: String, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { throw WaitTimeout(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Starts a catalog over `roots` and waits for its first pass.
func startCatalog(_ roots: [String], inotify: Bool = true, observer: ChangeRecorder? = nil, indexDirectory: String? = nil) async -> RunCatalog {
    var configuration = RunCatalog.Configuration(roots: roots)
    configuration.indexDirectory = indexDirectory
    configuration.useInotify = inotify
    configuration.pollInterval = 0.2
    configuration.rescanInterval = 0.5
    configuration.livenessInterval = 0.1
    let catalog = RunCatalog(configuration: configuration)
    catalog.start(observer: observer)
    await catalog.waitUntilReady()
    return catalog
}
