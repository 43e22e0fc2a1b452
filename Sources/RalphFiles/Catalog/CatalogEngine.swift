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
    /// Tail state of one run file.
    final class Tail {
        let location: RunLocation
        var device: UInt64?
        var inode: UInt64?
        var splitter: LineSplitter
        var lineCount = 0
        var generation = 0
        var lastSize = -1
        /// The file's first bytes as last read: a file rewritten in place (same inode, not shorter) shows up here.
        var head: [UInt8] = []
        /// The bytes that end at the splitter's line start (up to ``RunIndexStore/tailSize``), read with the lines
        /// themselves: what an index entry checks the file against.
        var end: [UInt8] = []
        /// What the on-disk index holds for this run (nil: nothing current).
        var indexed: (lineCount: Int, generation: Int)?

        var needsIndexing: Bool { indexed?.lineCount != lineCount || indexed?.generation != generation }

        init(location: RunLocation, maxLineBytes: Int) {
            self.location = location
            self.splitter = LineSplitter(offset: 0, maxLineBytes: maxLineBytes)
        }
    }

    /// A `.ralph` / `.agent` directory with runs.
    struct StateDirectory {
        var workspace: String
        /// The workspace root it was found under: its config is read from there, never through a link out of it.
        var root: String
        var layout: RunLocation.Layout
        var liveness = WorkspaceLiveness()
        var config: WorkspaceConfig?
        var configStamp: (path: String, modified: Date, size: Int)?
    }

    let catalog: RunCatalog
    let configuration: RunCatalog.Configuration
    var logger: Logger
    #if os(Linux)
    var inotify: Inotify?
    #endif
    var tails: [String: Tail] = [:]
    var stateDirectories: [String: StateDirectory] = [:]
    var dirtyRuns = Set<String>()
    var dirtyStateDirectories = Set<String>()
    var needsRescan = false
    let buffer: UnsafeMutableRawBufferPointer
    var index: RunIndexStore?
    /// Runs whose index entry is to be written, a few per pass of the loop so live events never wait long.
    var indexQueue: [String] = []
    /// First discovery: runs restored from the index and runs folded from their files, for the ready log.
    /// Runs whose details were dropped since memory was last handed back to the system.
    var detailsDropped = 0
    /// When a failed index write was last logged.
    var lastIndexWarning = 0.0
    var startup = (ready: false, restored: 0, folded: 0, lines: 0)
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

    func run() {
        #if os(Linux)
        if configuration.useInotify {
            inotify = Inotify()
            if inotify == nil { logger.warning("inotify unavailable; watching by polling every \(configuration.pollInterval)s") }
        }
        #endif
        if let directory = configuration.indexDirectory {
            let store = RunIndexStore(directory: directory)
            do {
                try store.prepare()
                index = store
            } catch {
                logger.warning("run index unavailable; every start folds every run file", metadata: ["error": "\(error)"])
            }
        }
        let started = Date()
        rescan()
        probeLiveness(all: true)
        startup.ready = true
        if let index {
            // Entries of runs that are gone are dropped; runs folded from their files are written in the background.
            let stored = index.storedIDs()
            for id in stored where tails[id] == nil { index.remove(id: id) }
            indexQueue = tails.values.filter(\.needsIndexing).map(\.location.id).sorted()
        }
        // The first pass's reading and folding leave freed heap behind; hand it back now.
        returnFreedMemory(always: true)
        let report = RunCatalog.StartupReport(
            runs: tails.count, restoredFromIndex: startup.restored, folded: startup.folded, linesRead: startup.lines,
            seconds: Date().timeIntervalSince(started)
        )
        let waiters = catalog.shared.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.startupReport = report
            s.ready = true
            defer { s.readyWaiters = [] }
            return s.readyWaiters
        }
        waiters.forEach { $0.resume() }
        logger.info(
            "catalog ready",
            metadata: [
                "runs": "\(report.runs)", "from-index": "\(report.restoredFromIndex)", "folded": "\(report.folded)", "lines-read": "\(report.linesRead)",
                "seconds": "\(String(format: "%.2f", report.seconds))", "roots": "\(configuration.roots.joined(separator: ", "))",
            ]
        )

        let now = { Date().timeIntervalSince1970 }
        var nextPoll = now() + configuration.pollInterval
        var nextRescan = now() + configuration.rescanInterval
        var nextLiveness = now() + configuration.livenessInterval
        var nextIndexSave = now() + configuration.indexInterval
        while true {
            let pending = !dirtyRuns.isEmpty || !dirtyStateDirectories.isEmpty || needsRescan || !indexQueue.isEmpty
            let wait = pending ? 0 : max(0, min(nextPoll, nextRescan, nextLiveness, index == nil ? .infinity : nextIndexSave) - now())
            waitForActivity(timeout: wait)
            let (stop, catchUps, rescanRequested, syncWaiters) = catalog.shared.withLock { s in
                defer {
                    s.catchUps = []
                    s.rescanRequested = false
                    s.syncWaiters = []
                }
                return (s.stopRequested, s.catchUps, s.rescanRequested, s.syncWaiters)
            }
            if rescanRequested { needsRescan = true }
            if !syncWaiters.isEmpty {
                rescan()
                dirtyRuns.formUnion(tails.keys)
                readDirtyRuns()
                probeLiveness(all: true)
                syncWaiters.forEach { $0.resume() }
            }
            for request in catchUps {
                if let tail = tails[request.id] {
                    if readNew(tail, announce: true) == .missing {
                        removeRun(request.id)
                    } else {
                        probeLiveness(paths: [tail.location.stateDirectory])
                    }
                }
                request.continuation.resume()
            }
            if stop { break }
            handleInotify()
            let t = now()
            if t >= nextRescan {
                needsRescan = true
                nextRescan = t + configuration.rescanInterval
            }
            if needsRescan {
                needsRescan = false
                rescan()
            }
            if t >= nextPoll {
                pollSizes()
                nextPoll = t + configuration.pollInterval
            }
            readDirtyRuns()
            if t >= nextLiveness {
                probeLiveness(all: true)
                nextLiveness = t + configuration.livenessInterval
            } else if !dirtyStateDirectories.isEmpty {
                probeLiveness(all: false)
            }
            if index != nil {
                if t >= nextIndexSave {
                    let queued = Set(indexQueue)
                    indexQueue += tails.values.filter { $0.needsIndexing && !queued.contains($0.location.id) }.map(\.location.id)
                    nextIndexSave = t + configuration.indexInterval
                    for tail in tails.values where !tail.needsIndexing { dropDetailsIfFinished(tail) }
                }
                saveQueuedIndexEntries(budget: 0.02)
            }
        }
        if index != nil {
            // What changed since the last save, so the next start reads only what is appended after this moment.
            indexQueue = tails.values.filter(\.needsIndexing).map(\.location.id)
            saveQueuedIndexEntries(budget: .infinity)
        }
        let (waiting, syncing) = catalog.shared.withLock { s in
            defer {
                s.catchUps = []
                s.syncWaiters = []
            }
            return (s.catchUps, s.syncWaiters)
        }
        waiting.forEach { $0.continuation.resume() }
        syncing.forEach { $0.resume() }
        let finishWaiters = catalog.shared.withLock { s in
            s.finished = true
            defer { s.finishWaiters = [] }
            return s.finishWaiters
        }
        finishWaiters.forEach { $0.resume() }
        logger.debug("catalog thread stopped")
    }

    /// Sleeps until inotify or the wake pipe has data, or the timeout passes.
    func waitForActivity(timeout: Double) {
        var fds: [pollfd] = [pollfd(fd: catalog.wakePipe.read, events: Int16(POLLIN), revents: 0)]
        #if os(Linux)
        if let inotify { fds.append(pollfd(fd: inotify.fd, events: Int16(POLLIN), revents: 0)) }
        #endif
        let ms = Int32(min(timeout * 1000, 60_000).rounded(.up))
        _ = poll(&fds, nfds_t(fds.count), ms)
        if fds[0].revents != 0 {
            var sink = [UInt8](repeating: 0, count: 256)
            while read(catalog.wakePipe.read, &sink, sink.count) > 0 {}
        }
    }

    func handleInotify() {
        #if os(Linux)
        guard let inotify else { return }
        for event in inotify.drain() {
            if event.mask & Inotify.queueOverflow != 0 {
                logger.warning("inotify queue overflowed; re-reading everything")
                needsRescan = true
                dirtyRuns.formUnion(tails.keys)
                dirtyStateDirectories.formUnion(stateDirectories.keys)
                continue
            }
            if let state = stateDirectories[event.directory] {
                handleStateDirectoryEvent(event, layout: state.layout)
            } else if event.name == ".ralph" || event.name == ".agent" || event.name == ".worktrees" || event.mask & Inotify.isDirectory != 0
                || event.mask & (Inotify.deleteSelf | Inotify.moveSelf | Inotify.ignored) != 0
            {
                needsRescan = true
            } else if event.name == "ralph.yml" || event.name == "ralph.yaml" {
                let workspace = event.directory
                for (path, state) in stateDirectories where state.workspace == workspace { dirtyStateDirectories.insert(path) }
            }
        }
        #endif
    }

    #if os(Linux)
    func handleStateDirectoryEvent(_ event: Inotify.Event, layout: RunLocation.Layout) {
        if event.mask & (Inotify.deleteSelf | Inotify.moveSelf | Inotify.ignored) != 0 {
            needsRescan = true
            return
        }
        if RunDiscovery.isRunFile(event.name, layout: layout) {
            let file = event.directory + "/" + event.name
            let id = RunID.make(forPath: file)
            if tails[id] != nil {
                dirtyRuns.insert(id)
            } else {
                needsRescan = true
            }
            // A new run usually comes with a new current-events pointer.
            if event.mask & (Inotify.create | Inotify.movedTo | Inotify.delete | Inotify.movedFrom) != 0 {
                dirtyStateDirectories.insert(event.directory)
            }
        } else if event.name == "current-events" || event.name == "loop.lock" {
            dirtyStateDirectories.insert(event.directory)
        }
    }
    #endif

    // MARK: - Discovery

    func rescan() {
        var found: [String: RunLocation] = [:]
        var containers: [String] = []
        var stateDirs: [String: (String, RunLocation.Layout, String)] = [:]
        var scans = configuration.roots.map { root in (root: root, candidates: RunDiscovery.workspaceCandidates(root: root)) }
        for extra in catalog.shared.withLock({ $0.extraWorkspaces }) {
            scans.append((extra.root, RunDiscovery.workspaceCandidates(workspace: extra.workspace)))
        }
        for (root, candidates) in scans {
            containers.append(contentsOf: candidates.containers)
            for workspace in candidates.workspaces {
                for (stateDir, layout) in RunDiscovery.stateDirectories(of: workspace) {
                    stateDirs[stateDir] = (workspace, layout, root)
                    for file in RunDiscovery.runFiles(in: stateDir, layout: layout) {
                        let location = RunLocation(file: file, stateDirectory: stateDir, workspace: workspace, root: root, layout: layout)
                        if found[location.id] == nil { found[location.id] = location }
                    }
                }
            }
        }
        // Anything created between listing a directory and watching it is caught by listing once more.
        if updateWatches(containers: containers, stateDirectories: Array(stateDirs.keys)) { needsRescan = true }
        for (path, info) in stateDirs where stateDirectories[path] == nil {
            stateDirectories[path] = StateDirectory(workspace: info.0, root: info.2, layout: info.1)
            dirtyStateDirectories.insert(path)
        }
        for id in tails.keys where found[id] == nil {
            removeRun(id)
        }
        for path in stateDirectories.keys where stateDirs[path] == nil {
            stateDirectories[path] = nil
        }
        let newLocations = found.values.filter { tails[$0.id] == nil }.sorted { $0.file < $1.file }
        var prepared: [String: Prepared] = [:]
        if !startup.ready { prepared = prepare(newLocations) }
        for location in newLocations {
            // Stopping while a large workspace is first read: what is folded so far is kept (and indexed), the rest waits.
            if isStopping { break }
            addRun(location, prepared: prepared[location.id])
        }
    }

    var isStopping: Bool { catalog.shared.withLock { $0.stopRequested } }

    /// Returns true when a new watch was added.
    func updateWatches(containers: [String], stateDirectories paths: [String]) -> Bool {
        #if os(Linux)
        guard let inotify else { return false }
        let wanted = Set(containers).union(paths)
        for path in inotify.watchedPaths where !wanted.contains(path) {
            inotify.unwatch(path)
        }
        let watched = inotify.watchedPaths
        let stateSet = Set(paths)
        var added = false
        for path in wanted where !watched.contains(path) {
            let mask = stateSet.contains(path) ? Inotify.stateMask : Inotify.containerMask
            if inotify.watch(path, mask: mask) {
                added = true
            } else if FileSystem.status(path)?.isDirectory == true {
                logger.warning("cannot watch \(path) (errno \(errno)); relying on polling for it")
            }
        }
        return added
        #else
        return false
        #endif
    }

    func addRun(_ location: RunLocation, prepared: Prepared? = nil) {
        // Fresh liveness first, so the run is announced with the right mode (a new run usually comes with a new
        // current-events pointer).
        probeLiveness(paths: [location.stateDirectory])
        let tail = Tail(location: location, maxLineBytes: configuration.maxLineBytes)
        tails[location.id] = tail
        var snapshot = RunSnapshot(location: location)
        snapshot.fileStartedAt = RunSnapshot.dateFromFileName(location.fileName) ?? FileSystem.status(location.file)?.modified
        if let state = stateDirectories[location.stateDirectory] {
            snapshot.liveness = state.liveness
            snapshot.config = state.config
        }
        catalog.shared.withLock { $0.runs[location.id] = snapshot }
        let restored: Bool
        if let prepared {
            restore(tail, from: prepared.entry, indexed: prepared.indexed)
            restored = prepared.fromIndex
        } else {
            restored = restoreFromIndex(tail)
        }
        let linesBefore = restored ? tail.lineCount : 0
        var outcome = readNew(tail, announce: false)
        // The first pass reads every file whole; later, a huge new file is read on in turns with the other runs.
        while outcome == .more, !startup.ready, !isStopping { outcome = readNew(tail, announce: false) }
        if outcome == .more { dirtyRuns.insert(location.id) }
        if !tail.needsIndexing { dropDetailsIfFinished(tail) }
        if !startup.ready {
            // (Progress is logged by the first pass's workers.)
            if restored { startup.restored += 1 } else { startup.folded += 1 }
            startup.lines += tail.lineCount - linesBefore
        }
        if let added = catalog.snapshot(id: location.id) {
            logger.debug("run added", metadata: ["id": "\(location.id)", "file": "\(location.file)", "lines": "\(added.state.lineCount)"])
            catalog.announce(.added(added))
        }
    }

    func removeRun(_ id: String) {
        guard tails.removeValue(forKey: id) != nil else { return }
        index?.remove(id: id)
        catalog.shared.withLock { _ = $0.runs.removeValue(forKey: id) }
        dirtyRuns.remove(id)
        logger.debug("run removed", metadata: ["id": "\(id)"])
        catalog.announce(.removed(id: id))
    }

    // MARK: - Tailing

    func pollSizes() {
        for (id, tail) in tails {
            guard let status = FileSystem.status(tail.location.file) else {
                dirtyRuns.insert(id)
                continue
            }
            if status.size != tail.lastSize || status.inode != tail.inode || status.device != tail.device {
                dirtyRuns.insert(id)
            }
        }
    }

    func readDirtyRuns() {
        let ids = dirtyRuns
        dirtyRuns.removeAll()
        for id in ids {
            guard let tail = tails[id] else { continue }
            switch readNew(tail, announce: true) {
            case .missing: removeRun(id)
            case .more: dirtyRuns.insert(id)
            case .done, .failed: break
            }
        }
    }

    enum ReadOutcome { case done, more, missing, failed }

    /// Reads what was appended since the last read, folds it in, and tells the observers (when `announce`).
    func readNew(_ tail: Tail, announce: Bool) -> ReadOutcome {
        let id = tail.location.id
        let fd = open(tail.location.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            logger.warning("cannot open run file", metadata: ["file": "\(tail.location.file)", "errno": "\(errno)"])
            return .failed
        }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { return .failed }
        var reset = false
        if let inode = tail.inode, inode != status.inode || tail.device != status.device {
            reset = true
        } else if status.size < tail.splitter.offset {
            reset = true
        } else if !tail.head.isEmpty, Self.readHead(fd: fd, count: tail.head.count) != tail.head {
            reset = true
        }
        if !reset, status.size > tail.splitter.offset, catalog.shared.withLock({ $0.runs[id]?.state.hasDetails == false }), !restoreDetails(tail) {
            // Neither the index nor the file gives back the state folded so far: start over rather than fold on
            // into a state without its details.
            reset = true
        }
        if reset {
            logger.info("run file replaced or truncated; reading it again from the start", metadata: ["id": "\(id)"])
            tail.splitter = LineSplitter(offset: 0, maxLineBytes: configuration.maxLineBytes)
            tail.lineCount = 0
            tail.head = []
            tail.generation += 1
            let generation = tail.generation
            catalog.shared.withLock { s in
                guard var run = s.runs[id] else { return }
                run.state = RunState()
                run.checkpoints = [0]
                run.generation = generation
                s.runs[id] = run
            }
        }
        tail.device = status.device
        tail.inode = status.inode
        catalog.shared.withLock { s in
            s.runs[id]?.device = status.device
            s.runs[id]?.inode = status.inode
        }

        var pendingEvents: [RalphEvent] = []
        var budget = Self.maxBytesPerRead
        var outcome = ReadOutcome.done
        while true {
            let offset = tail.splitter.offset
            let n = FileSystem.pread(fd: fd, into: buffer, offset: offset)
            if n < 0 {
                logger.warning("cannot read run file", metadata: ["file": "\(tail.location.file)", "errno": "\(errno)"])
                outcome = .failed
                break
            }
            if n == 0 { break }
            var lines: [DecodedLine] = []
            var checkpoints: [Int] = []
            var lineNumber = tail.lineCount
            tail.splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { piece in
                lineNumber += 1
                lines.append(EventFileReader.decode(piece, line: lineNumber, maxLineBytes: configuration.maxLineBytes, checkpoints: &checkpoints))
                return true
            }
            tail.lineCount = lineNumber
            if !lines.isEmpty {
                catalog.shared.withLock { s in
                    // Taken out and put back (one lookup per chunk, not per line; the state is uniquely held, so it
                    // is folded in place). Readers wait for the lock, so none sees it missing.
                    guard var run = s.runs.removeValue(forKey: id) else { return }
                    for line in lines { run.state.apply(line) }
                    run.checkpoints.append(contentsOf: checkpoints)
                    s.runs[id] = run
                }
                if announce && !reset {
                    for case .event(let event) in lines { pendingEvents.append(event) }
                    if pendingEvents.count >= 4096 {
                        announceAppended(id, events: pendingEvents)
                        pendingEvents.removeAll(keepingCapacity: true)
                    }
                }
            }
            budget -= n
            if budget <= 0 || isStopping {
                outcome = .more
                break
            }
        }
        tail.lastSize = status.size
        if tail.head.count < Self.headSize, tail.splitter.offset > tail.head.count {
            tail.head = Self.readHead(fd: fd, count: min(Self.headSize, tail.splitter.offset))
        }
        if index != nil {
            let lineStart = tail.splitter.lineStart
            tail.end = Self.readBytes(fd: fd, count: min(RunIndexStore.tailSize, lineStart), endingAt: lineStart) ?? []
        }
        if reset {
            if let snapshot = catalog.snapshot(id: id) { catalog.announce(.reset(snapshot)) }
        } else if !pendingEvents.isEmpty {
            announceAppended(id, events: pendingEvents)
        }
        return outcome
    }

    static let headSize = 64

    static func readHead(fd: Int32, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: 0) }
        return n == count ? bytes : []
    }

    func announceAppended(_ id: String, events: [RalphEvent]) {
        guard let snapshot = catalog.snapshot(id: id) else { return }
        catalog.announce(.appended(snapshot, events: events))
    }

    // MARK: - Liveness

    /// Re-probes liveness (all state directories, or the dirty ones), announcing runs whose view changed.
    func probeLiveness(all: Bool) {
        let paths = all ? Set(stateDirectories.keys) : dirtyStateDirectories
        dirtyStateDirectories.removeAll()
        probeLiveness(paths: paths)
    }

    func probeLiveness(paths: Set<String>) {
        guard !paths.isEmpty else { return }
        let locks = LockTable.current()
        for path in paths {
            guard var state = stateDirectories[path] else { continue }
            var liveness = LivenessProbe.probe(workspace: state.workspace, stateDirectory: path, layout: state.layout, locks: locks)
            if state.liveness.lockHeld && !liveness.lockHeld {
                // A loop ending is final for its clients (they get `end` and stop): confirm with a fresh lock table
                // before believing it, so one odd read of /proc/locks cannot end a live run.
                liveness = LivenessProbe.probe(workspace: state.workspace, stateDirectory: path, layout: state.layout, locks: LockTable.current())
            }
            let configChanged = refreshConfig(&state)
            let livenessChanged = liveness != state.liveness
            state.liveness = liveness
            stateDirectories[path] = state
            guard livenessChanged || configChanged else { continue }
            for tail in tails.values where tail.location.stateDirectory == path {
                let id = tail.location.id
                guard let before = catalog.snapshot(id: id) else { continue }
                var after = before
                after.liveness = liveness
                after.config = state.config
                if before.isLive && !after.isLive {
                    // Deliver the run's last lines before announcing that it ended.
                    _ = readNew(tail, announce: true)
                }
                let changed = catalog.shared.withLock { s -> RunSnapshot? in
                    guard s.runs[id] != nil else { return nil }
                    s.runs[id]!.liveness = liveness
                    s.runs[id]!.config = state.config
                    return s.runs[id]
                }
                if let changed, before.isLive != changed.isLive || before.liveness.pid != changed.liveness.pid
                    || before.isCurrent != changed.isCurrent || before.config != changed.config
                {
                    catalog.announce(.updated(changed))
                }
            }
        }
    }

    /// Re-reads the workspace config when its file changed; true if the parsed values changed.
    func refreshConfig(_ state: inout StateDirectory) -> Bool {
        let root = RootDirectory(path: state.root)
        guard let file = WorkspaceConfig.file(in: state.workspace, root: root), let status = try? root.status(file) else {
            let changed = state.config != nil
            state.config = nil
            state.configStamp = nil
            return changed
        }
        if let stamp = state.configStamp, stamp.path == file, stamp.modified == status.modified, stamp.size == status.size {
            return false
        }
        state.configStamp = (file, status.modified, status.size)
        let parsed = WorkspaceConfig.load(in: state.workspace, root: root)?.config
        if parsed == nil { logger.debug("workspace config is not a YAML mapping", metadata: ["file": "\(file)"]) }
        let changed = parsed != state.config
        state.config = parsed
        return changed
    }
}
