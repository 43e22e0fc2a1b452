import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The catalog's thread: discovery, tailing, liveness. Confined to that thread; publishes into `catalog.shared`.
final class CatalogEngine {
    /// A run file being tailed: where it is, and what is known about it (which decides reset or continue).
    final class Tail {
        let location: RunLocation
        var known: RunTail
        /// Listed from a fast scan; its file is not read on until its background fold is adopted
        /// (CatalogEngine+BackgroundFold.swift).
        var awaitingFold = false

        init(location: RunLocation, maxLineBytes: Int) {
            self.location = location
            self.known = RunTail(maxLineBytes: maxLineBytes)
        }
    }

    /// A `.ralph` / `.agent` directory with runs.
    struct StateDirectory {
        var workspace: String
        /// The workspace root it was found under: its config is read from there, never through a link out of it.
        var root: String
        var layout: RunLocation.Layout
        var liveness = WorkspaceLiveness() {
            didSet { if liveness != oldValue { livenessBox = SnapshotBox(liveness) } }
        }
        /// ``liveness``, boxed once for every run of the workspace (``RunSnapshot/livenessBox``).
        var livenessBox = emptyLivenessBox
        var config: WorkspaceConfig?
        var configStamp: (path: String, modified: Date, size: Int)?
        /// Why the config could not be read, last time it was tried (logged once, when it changes).
        var configProblem: String?
        /// ``CatalogEngine/userDefaults``' generation ``config`` was computed with.
        var userDefaultsGeneration = -1
    }

    let catalog: RunCatalog
    let configuration: RunCatalog.Configuration
    var logger: Logger
    #if os(Linux)
    var inotify: Inotify?
    #endif
    var tails: [String: Tail] = [:]
    var stateDirectories: [String: StateDirectory] = [:]
    /// `~/.ralph/config.yml`, under every workspace's config (CatalogEngine+UserDefaults.swift).
    var userDefaults = UserDefaults()
    var dirtyRuns = Set<String>()
    var dirtyStateDirectories = Set<String>()
    var needsRescan = false
    /// Workspaces to serve besides the discovered ones (e.g. where the server started a run in a nested directory).
    var extraWorkspaces: [(workspace: String, root: String)] = []
    /// Callers waiting for the thread to stop (answered by ``finish()``).
    var finishWaiters: [CatalogCommand] = []
    let buffer: UnsafeMutableRawBufferPointer
    var index: RunIndexStore?
    /// Runs whose index entry is to be written, a few per pass of the loop so live events never wait long.
    var indexQueue: [String] = []
    /// Runs whose details were dropped since memory was last handed back to the system.
    var detailsDropped = 0
    /// When a failed index write was last logged.
    var lastIndexWarning = 0.0
    /// When freed heap was last handed back to the system (CatalogEngine+Memory.swift).
    var lastTrim = 0.0
    /// First discovery: runs restored from the index, folded from their files and listed from a fast scan, for the
    /// ready log.
    var startup = (ready: false, restored: 0, folded: 0, scanned: 0, lines: 0, prepareSeconds: 0.0)
    /// Runs listed from a scan whose fold is not adopted yet.
    var foldsOutstanding = 0
    var backgroundFoldStarted: Date?
    /// Catch-ups asked for runs awaiting their fold, answered once it is adopted.
    var parkedCatchUps: [String: [CatalogCommand]] = [:]
    /// When each periodic job is next due (seconds since 1970).
    var due = (poll: 0.0, rescan: 0.0, liveness: 0.0, indexSave: 0.0)
    static let chunkSize = 1 << 20
    /// Per call, so one fast writer cannot starve the other runs.
    static let maxBytesPerRead = 64 << 20

    init(catalog: RunCatalog) {
        self.catalog = catalog
        self.configuration = catalog.configuration
        self.logger = catalog.logger
        self.buffer = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    // MARK: - Main loop

    /// The thread's body: the first discovery, then passes of the loop until asked to stop, then the last index writes.
    func run() {
        openWatchers()
        openIndex()
        firstDiscovery()
        while pass() {}
        finish()
    }

    func openWatchers() {
        #if os(Linux)
        if configuration.useInotify {
            inotify = Inotify()
            if inotify == nil { logger.warning("inotify unavailable; watching by polling every \(configuration.pollInterval)s") }
        }
        #endif
    }

    func openIndex() {
        guard let directory = configuration.indexDirectory else { return }
        let store = RunIndexStore(directory: directory)
        do {
            try store.prepare()
            index = store
        } catch {
            logger.warning("run index unavailable; every start folds every run file", metadata: ["error": "\(error)"])
        }
    }

    /// Finds and folds every run, then tells the waiters the catalog is ready.
    func firstDiscovery() {
        let started = Date()
        rescan()
        probeLiveness(all: true)
        startup.ready = true
        if let index {
            // Entries of runs that are gone are dropped; runs folded from their files are written in the background.
            do {
                for id in try index.storedIDs() where tails[id] == nil { index.remove(id: id) }
            } catch {
                logger.warning("cannot list the run index; entries of runs that are gone stay", metadata: ["error": "\(error)"])
            }
            indexQueue = tails.values.filter { $0.known.needsIndexing && !$0.awaitingFold }.map(\.location.id).sorted()
        }
        // The first pass's reading and folding leave freed heap behind; hand it back now.
        returnFreedMemory(always: true)
        let report = RunCatalog.StartupReport(
            runs: tails.count, restoredFromIndex: startup.restored, folded: startup.folded, scanned: startup.scanned, linesRead: startup.lines,
            seconds: Date().timeIntervalSince(started)
        )
        announceReady(report)
        logger.info(
            "catalog ready",
            metadata: [
                "runs": "\(report.runs)", "from-index": "\(report.restoredFromIndex)", "folded": "\(report.folded)", "scanned": "\(report.scanned)",
                "lines-read": "\(report.linesRead)", "seconds": "\(String(format: "%.2f", report.seconds))",
                "reading-seconds": "\(String(format: "%.2f", startup.prepareSeconds))",
                "roots": "\(configuration.roots.joined(separator: ", "))",
            ]
        )
        // The runs listed from a scan get their details now, off this thread.
        startBackgroundFolds()
        let t = Self.now()
        due = (t + configuration.pollInterval, t + configuration.rescanInterval, t + configuration.livenessInterval, t + configuration.indexInterval)
    }

    static func now() -> Double { Date().timeIntervalSince1970 }

    /// One pass: wait for something to do, serve the callers' requests, then the file events and the periodic jobs.
    /// False once asked to stop.
    func pass() -> Bool {
        let pending = !dirtyRuns.isEmpty || !dirtyStateDirectories.isEmpty || needsRescan || !indexQueue.isEmpty
        let next = min(due.poll, due.rescan, due.liveness, index == nil ? .infinity : due.indexSave, bulkReadTrimDue())
        waitForActivity(timeout: pending ? 0 : max(0, next - Self.now()))
        if !serveCommands() { return false }
        handleInotify()
        runPeriodicJobs(at: Self.now())
        return true
    }

    /// The file events and the jobs that are due: re-discovery, the fallback poll, reading, liveness, index writes.
    func runPeriodicJobs(at t: Double) {
        if t >= due.rescan {
            needsRescan = true
            due.rescan = t + configuration.rescanInterval
        }
        if needsRescan {
            needsRescan = false
            rescan()
        }
        if t >= due.poll {
            pollSizes()
            due.poll = t + configuration.pollInterval
        }
        readDirtyRuns()
        if t >= due.liveness {
            probeLiveness(all: true)
            due.liveness = t + configuration.livenessInterval
        } else if !dirtyStateDirectories.isEmpty {
            probeLiveness(all: false)
        }
        trimAfterBulkReads(at: t)
        guard index != nil else { return }
        if t >= due.indexSave {
            queueChangedRunsForIndexing()
            due.indexSave = t + configuration.indexInterval
            for tail in tails.values where !tail.known.needsIndexing { dropDetailsIfFinished(tail) }
        }
        saveQueuedIndexEntries(budget: 0.02)
    }

    /// Writes what changed since the last save, so the next start reads only what is appended after this moment, then
    /// answers whoever still waits.
    func finish() {
        // Folds under way stop at their next chunk; runs not folded yet are scanned again at the next start.
        catalog.backgroundFolds.cancelAndWait()
        if index != nil {
            indexQueue = tails.values.filter(\.known.needsIndexing).map(\.location.id)
            saveQueuedIndexEntries(budget: .infinity)
        }
        releaseWaiters()
        // Nothing is announced any more: the observers (which hold the catalog) are let go, so a stopped server's
        // parts are released with it.
        catalog.observers.withLock { $0.all.removeAll() }
        logger.debug("catalog thread stopped")
    }
}
