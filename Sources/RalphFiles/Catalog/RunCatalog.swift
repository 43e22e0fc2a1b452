import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives the catalog's changes, in order, on the catalog's thread. Implementations must not block.
public protocol RunCatalogObserver: AnyObject, Sendable {
    func catalogDidChange(_ change: RunCatalog.Change)
}

/// Every ralph run under the workspace roots, kept current by watching the disk.
///
/// One dedicated thread owns all file I/O: it discovers runs, tails their files (inotify, with a slow poll as a
/// fallback), folds new lines into each run's ``RunState`` and probes liveness. Readers on any thread take
/// ``RunSnapshot``s under a lock, so the async runtime never waits on the disk.
public final class RunCatalog: Sendable {
    public struct Configuration: Sendable {
        /// Canonical absolute workspace roots.
        public var roots: [String]
        /// Fallback re-read of every run file, for filesystems where inotify misses writes.
        public var pollInterval: Double = 2
        /// Mixed into every run id (``RunID/make(forPath:namespace:)``): the host id of a server in a cluster, empty for
        /// a server on its own.
        public var idNamespace = ""
        /// Fallback re-discovery of workspaces.
        public var rescanInterval: Double = 10
        /// Re-check of liveness (a loop that dies leaves no file event).
        public var livenessInterval: Double = 1
        /// Longest line that is buffered; longer lines count as malformed.
        public var maxLineBytes = 64 << 20
        /// Use inotify (false forces polling, for tests of the fallback).
        public var useInotify = true
        /// Where to keep the on-disk index of folded run state (nil: none, every start folds every run file).
        public var indexDirectory: String?
        /// How often changed runs are written to the index (and once more when the catalog stops).
        public var indexInterval: Double = 30
        /// With an index: finished runs keep only their summary in memory; details are read back when asked for.
        public var dropFinishedDetails = true
        /// ralph's user-scoped default config (`$HOME/.ralph/config.yml`), merged under each workspace's `ralph.yml`
        /// (nil: none).
        public var userConfigFile: String?
        /// At the first discovery, a run file of at least this many bytes that the index does not describe is listed
        /// from a fast scan (``RunSnapshot/foldPending``) and folded in the background once the catalog is ready;
        /// smaller ones are folded before (`Int.max`: every run folded before the catalog is ready).
        public var scanThreshold = 64 << 10
        /// Threads that fold the runs listed from a scan, at a lower priority than the rest of the server (a core is
        /// left to answering requests).
        public var backgroundFoldThreads = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        /// Tests: no background fold starts until ``RunCatalog/releaseBackgroundFolds()``, so what the catalog shows
        /// between its first list and its folds can be looked at.
        public var holdsBackgroundFolds = false
        /// Told of every fold of run-file lines into run state — the lines read on as a file grows, a whole file at the
        /// first discovery, a background fold — with how many lines it folded, how many of them were malformed, and
        /// how long it took (the server's metrics). Called on the thread that folded: it must not block.
        public var foldObserver: (@Sendable (_ lines: Int, _ malformed: Int, _ duration: Duration) -> Void)?

        public init(roots: [String]) {
            self.roots = roots
        }
    }

    /// A change, delivered to the observer after the catalog's own state reflects it.
    public enum Change: Sendable {
        /// A run was discovered (its existing lines already folded in).
        case added(RunSnapshot)
        /// New lines were read; `events` are the new well-formed ones, in order.
        case appended(RunSnapshot, events: [RalphEvent])
        /// Liveness or configuration changed.
        case updated(RunSnapshot)
        /// The file was replaced or shrank and was read again from the start: ids restarted.
        case reset(RunSnapshot)
        case removed(id: String)
    }

    /// Result of resolving an id or id prefix.
    public enum Resolution: Sendable, Equatable {
        case found(String)
        case notFound(reason: String)
        case ambiguous([String])
    }

    /// How the first discovery went.
    public struct StartupReport: Sendable, Equatable {
        public var runs: Int
        /// Runs whose state came from the on-disk index (only their appended lines were read).
        public var restoredFromIndex: Int
        /// Runs folded from the start of their files.
        public var folded: Int
        /// Runs listed from a fast scan of their files, folded in the background after the catalog was ready.
        public var scanned: Int
        /// Lines read from run files (appended ones only, for restored runs).
        public var linesRead: Int
        public var seconds: Double
    }

    struct Shared: Sendable {
        var runs = RunTable()
        /// The configs runs were started with (``assignRunConfig(_:toRun:)``), also for runs not read yet.
        var runConfigs: [String: WorkspaceConfig] = [:]
        var startupReport: StartupReport?
        var ready = false
        /// Commands for the thread, in the order they were posted.
        var mailbox: [CatalogCommand] = []
        var stopRequested = false
        var started = false
        /// The thread has stopped (its last index writes done); commands posted from now on are answered at once.
        var finished = false
        /// Callers waiting for a run's background fold (``waitUntilFolded(id:timeout:)``), by run and by ticket.
        var foldWaiters: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
        /// Tickets whose wait ended (timed out, cancelled) before they were registered.
        var withdrawnFoldWaits = Set<Int>()
        var lastFoldWait = 0
        /// The last bulk read (``snapshots()`` of ``bulkReadRuns`` runs or more) not yet followed by a trim of the heap.
        var bulkReadAt: Double?
    }

    let configuration: Configuration
    let logger: Logger
    let shared = Mutex(Shared())
    /// Who hears the catalog's changes (the event fan-out, run control, ...), by subscription number.
    let observers = Mutex<(next: Int, all: [(id: Int, observer: any RunCatalogObserver)])>((0, []))
    let wakePipe: (read: Int32, write: Int32)
    /// The folds of the runs the first discovery listed from a scan.
    let backgroundFolds: BackgroundFolds

    public init(configuration: Configuration, logger: Logger = Logger(label: "ralph-mobile.catalog")) {
        self.configuration = configuration
        self.logger = logger
        backgroundFolds = BackgroundFolds(held: configuration.holdsBackgroundFolds)
        var fds: [Int32] = [0, 0]
        if pipe(&fds) == 0 {
            _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            wakePipe = (fds[0], fds[1])
        } else {
            wakePipe = (-1, -1)
        }
    }

    deinit {
        if wakePipe.read >= 0 {
            close(wakePipe.read)
            close(wakePipe.write)
        }
    }

    /// A subscription to the catalog's changes; ``unsubscribe(_:)`` ends it.
    public struct Subscription: Hashable, Sendable {
        let id: Int
    }

    /// Adds an observer: from the next change on, it hears every change in order, on the catalog's thread, after the
    /// catalog's own state reflects it. Subscribe before ``start(observer:)`` to hear the first discovery.
    @discardableResult
    public func subscribe(_ observer: any RunCatalogObserver) -> Subscription {
        observers.withLock { list in
            list.next += 1
            list.all.append((list.next, observer))
            return Subscription(id: list.next)
        }
    }

    public func unsubscribe(_ subscription: Subscription) {
        observers.withLock { $0.all.removeAll { $0.id == subscription.id } }
    }

    /// Tells every observer about `change` (on the catalog's thread).
    func announce(_ change: Change) {
        let all = observers.withLock { $0.all }
        for entry in all { entry.observer.catalogDidChange(change) }
    }

    /// Starts the catalog thread, with `observer` (if any) subscribed first. Call once.
    public func start(observer: (any RunCatalogObserver)? = nil) {
        if let observer { subscribe(observer) }
        let first = shared.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started
        }
        precondition(first, "RunCatalog.start called twice")
        let thread = Thread { [self] in
            let engine = CatalogEngine(catalog: self)
            engine.run()
        }
        thread.name = "ralph-mobile.catalog"
        thread.start()
    }

    /// Asks the thread to stop; returns at once.
    public func stop() {
        shared.withLock { $0.stopRequested = true }
        wake()
    }

    /// Asks the thread to stop and returns once it has, with the index written.
    public func stopAndWait() async {
        stop()
        await waitUntilFinished()
    }

    /// Returns once the thread has stopped (at once if it never started).
    func waitUntilFinished() async {
        await post(CatalogCommand.waitUntilFinished, unless: { !$0.started })
    }

    /// Posts a command and waits for its answer; answered at once when the thread is gone or `unless` holds.
    func post(_ command: (CheckedContinuation<Void, Never>) -> CatalogCommand, unless refuse: (Shared) -> Bool = { _ in false }) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let posted = command(continuation)
            let accepted = shared.withLock { s -> Bool in
                if s.finished || refuse(s) { return false }
                s.mailbox.append(posted)
                return true
            }
            if accepted { wake() } else { posted.answer() }
        }
    }

    /// Reads a run's file and probes its liveness now (announcing what changed to the observer); returns when done.
    ///
    /// Use it when a client knows of more lines than the catalog has announced yet, to tell a lagging catalog from a
    /// file that really has fewer lines.
    public func catchUp(id: String) async {
        await post({ .catchUp(id: id, $0) }, unless: \.stopRequested)
    }

    /// Re-discovers every workspace and reads every run now; returns when the catalog reflects the disk.
    public func synchronize() async {
        await post(CatalogCommand.synchronize, unless: \.stopRequested)
    }

    /// Serves `workspace` (a directory inside `root`) even if discovery would not look there, and re-scans now.
    public func addWorkspace(_ workspace: String, root: String) {
        let accepted = shared.withLock { s -> Bool in
            guard !s.finished else { return false }
            s.mailbox.append(.addWorkspace(workspace: workspace, root: root))
            return true
        }
        if accepted { wake() }
    }

    /// The number of the line that starts at byte `offset` of a run's file: counted from the nearest checkpoint.
    /// Blocking (reads the file); call it from a thread pool.
    public func lineNumber(id: String, lineStartingAt offset: Int) throws(EventFileReader.ReadError) -> Int? {
        let start: EventFileReader.Position? = shared.withLock { s in
            guard let run = s.runs[id] else { return nil }
            // The last checkpoint at or before `offset`.
            var index = run.checkpoints.count - 1
            while index > 0, run.checkpoints[index] > offset { index -= 1 }
            return EventFileReader.Position(
                file: run.location.file, device: run.device, inode: run.inode, generation: run.generation,
                nextLine: index * RunSnapshot.checkpointInterval + 1, offset: run.checkpoints[index]
            )
        }
        guard let start else { return nil }
        return try EventFileReader.lineNumber(from: start, lineStartingAt: offset)
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    /// Returns once the first discovery and indexing pass is done.
    public func waitUntilReady() async {
        await post(CatalogCommand.waitUntilReady, unless: \.ready)
    }

    /// How the first discovery went (nil until ready).
    public func startupReport() -> StartupReport? {
        shared.withLock { $0.startupReport }
    }

    /// A run with its details (hat flow, iterations, hat usage, tokens, backpressure, recent events), read back from
    /// the index — or, failing that, from the run file — when they were dropped from memory. Blocking: call it from a
    /// thread pool.
    public func detailedSnapshot(id: String) throws(EventFileReader.ReadError) -> DetailedRun? {
        var attempts = 0
        while true {
            guard let snapshot = snapshot(id: id) else { return nil }
            if let detailed = snapshot.detailed { return detailed }
            attempts += 1
            do {
                return DetailedRun(snapshot: snapshot, state: try details(of: snapshot))
            } catch {
                // The run moved on (lines appended, file replaced) while it was read: take it again as it is now.
                if attempts >= 3 { throw error }
            }
        }
    }

    private func details(of snapshot: RunSnapshot) throws(EventFileReader.ReadError) -> RunState {
        let lines = snapshot.summary.lineCount
        if let directory = configuration.indexDirectory {
            do {
                if let entry = try RunIndexStore(directory: directory).load(id: snapshot.id), entry.file == snapshot.location.file,
                    entry.device == snapshot.device, entry.inode == snapshot.inode, entry.state.lineCount == lines
                {
                    return entry.state
                }
            } catch {
                logger.notice("cannot use the run's index entry; folding its file instead", metadata: ["id": "\(snapshot.id)", "error": "\(error)"])
                // A finished run listed from its entry's summary: its details are read only now. The catalog's thread
                // writes the entry again.
                if error.isDamage { postFromThread(.repairIndexEntry(id: snapshot.id)) }
            }
        }
        let state = try EventFileReader.foldState(
            file: snapshot.location.file, device: snapshot.device, inode: snapshot.inode, lines: lines, maxLineBytes: configuration.maxLineBytes
        )
        return state
    }

    /// All runs.
    public func snapshots() -> [RunSnapshot] {
        let (all, first) = shared.withLock { s -> ([RunSnapshot], Bool) in
            let all = s.runs.values
            return (all, Self.noteRead(of: all.count, in: &s))
        }
        if first { wake() }
        return all
    }

    /// Records a read of `count` snapshots: true when it is the first bulk read since they stopped, so that the
    /// catalog's thread is woken to hand the memory such reads leave behind back once they stop
    /// (CatalogEngine+Memory.swift).
    private static func noteRead(of count: Int, in s: inout Shared) -> Bool {
        guard count >= bulkReadRuns else { return false }
        defer { s.bulkReadAt = Date().timeIntervalSince1970 }
        return s.bulkReadAt == nil
    }

    /// What a list needs to bring what it built from the runs at some version up to date (``listing(since:fresh:)``).
    public struct Listing: Sendable {
        /// The runs' version now.
        public var version: UInt64
        /// The settled runs (``RunSnapshot/isSettled``) added or changed since the version asked about — all of them
        /// when that was nil or is not this catalog's.
        public var changed: [RunSnapshot]
        /// Every run's id now; nil when no run changed since the version asked about.
        public var ids: Set<String>?
        /// Every run that is not settled (live, or with no start date), and the runs `fresh` named: whatever changed.
        public var fresh: [RunSnapshot]
    }

    /// The runs a list must build again: the unsettled ones always, the settled ones only when they changed since
    /// `version`, and those named in `fresh` (whose entries depend on more than their snapshot: paused, stopped).
    public func listing(since version: UInt64?, fresh named: Set<String>) -> Listing {
        let (listing, first) = shared.withLock { s -> (Listing, Bool) in
            var fresh = s.runs.snapshots { !$0.isSettled }
            fresh += s.runs.snapshots(named).filter(\.isSettled)
            guard version != s.runs.version else { return (Listing(version: s.runs.version, changed: [], ids: nil, fresh: fresh), false) }
            let (changed, ids) = s.runs.changed(since: version)
            let listing = Listing(version: s.runs.version, changed: changed.filter(\.isSettled), ids: ids, fresh: fresh)
            return (listing, Self.noteRead(of: changed.count, in: &s))
        }
        if first { wake() }
        return listing
    }

    /// How many runs make ``snapshots()`` a bulk read (hundreds of kilobytes of copies, and more built from them).
    static let bulkReadRuns = 512

    public func snapshot(id: String) -> RunSnapshot? {
        shared.withLock { $0.runs[id] }
    }

    /// The config run `id` was started with (run control knows it for the runs it started with `-c <file>`): its
    /// `total` and hats' `publishes` then come from it rather than from the workspace's `ralph.yml`. Kept for a run
    /// the catalog has not read yet (and at most ``runConfigLimit`` of them).
    public func assignRunConfig(_ config: WorkspaceConfig, toRun id: String) {
        shared.withLock { s in
            s.runConfigs[id] = config
            // Bounded: one out, preferably of a run the catalog does not have (any other one otherwise).
            if s.runConfigs.count > Self.runConfigLimit,
                let out = s.runConfigs.keys.first(where: { !s.runs.contains($0) && $0 != id }) ?? s.runConfigs.keys.first(where: { $0 != id })
            {
                s.runConfigs[out] = nil
            }
            s.runs[id]?.runConfig = config
        }
    }

    static let runConfigLimit = 1024

    /// The user's default config file the catalog reads under every workspace's config (`~/.ralph/config.yml`).
    public var userConfigFile: String? { configuration.userConfigFile }

    /// Resolves a full id or a unique prefix of at least ``RunID/minimumPrefixLength`` hex chars.
    public func resolve(_ text: String) -> Resolution {
        let key = text.lowercased()
        guard !key.isEmpty, key.utf8.allSatisfy(RunID.isLowerHex) else {
            return .notFound(reason: "ids are hex strings; no session matches '\(text.prefix(80))'")
        }
        guard key.utf8.count >= RunID.minimumPrefixLength else {
            return .notFound(reason: "an id prefix needs at least \(RunID.minimumPrefixLength) characters")
        }
        return shared.withLock { s in
            if s.runs.contains(key) { return .found(key) }
            let matches = s.runs.keys.filter { $0.hasPrefix(key) }.sorted()
            switch matches.count {
            case 0: return .notFound(reason: "no session matches '\(key)'")
            case 1: return .found(matches[0])
            default: return .ambiguous(matches)
            }
        }
    }

    /// Where to start reading to replay the events after `afterLine`: the nearest checkpoint at or before it.
    public func replayStart(id: String, afterLine: Int) -> EventFileReader.Position? {
        shared.withLock { s in
            guard let run = s.runs[id] else { return nil }
            let index = min(max(0, afterLine) / RunSnapshot.checkpointInterval, run.checkpoints.count - 1)
            return EventFileReader.Position(
                file: run.location.file, device: run.device, inode: run.inode, generation: run.generation,
                nextLine: index * RunSnapshot.checkpointInterval + 1, offset: run.checkpoints[index]
            )
        }
    }
}
