import Foundation
import Logging
import RalphAPI
import RalphFiles
import Synchronization

/// Starts, stops, pauses and resumes ralph loops, and remembers what it did across restarts.
///
/// - What it knows is one ``RunLifecycle`` value. Catalog changes, child exits, timers and control requests become
///   events of that value; the actions it answers are carried out here (write the state file, answer a waiting start,
///   make the catalog read the disk, announce a pause). Nothing polls.
/// - Runs it starts are spawned with ``ChildProcess`` (own process group, output to a per-run log file) and matched to
///   the run file ralph creates (see ``RunLifecycle``).
/// - Stop and pause work for any live run whose loop process belongs to this user, started here or not: the process
///   is the `loop.lock` holder the catalog reports.
/// - What must survive a restart (started runs and their logs, paused runs) is kept in `<data-dir>/state/runs.json`,
///   written in order by ``RunStateFile``.
/// - Every task it starts is owned (``OwnedTasks``): ``shutdown()`` cancels and awaits them.
public final class RunSupervisor: RunCatalogObserver, Sendable {
    struct State {
        var lifecycle: RunLifecycle
        /// Our children while they run, by pending id.
        var children: [String: ChildProcess] = [:]
        /// Stops under way, by session id (a second stop joins the first).
        var stopping: [String: Task<StopOutcome, any Error>] = [:]
        /// Callers waiting for a start to resolve, by pending id and waiter number.
        var startWaiters: [String: [Int: CheckedContinuation<StartResolution?, Never>]] = [:]
        /// Numbers start waiters and pause subscriptions.
        var nextKey = 0
        /// Starts whose process ended without creating a run (answered to callers that ask later).
        var endedStarts: [String: ChildProcess.Exit] = [:]
        /// Callers waiting for changes to the runs of a workspace, by key.
        var watches: [Int: WorkspaceChangeWatch] = [:]
        /// Who hears pause changes, by subscription number.
        var pauseObservers: [Int: @Sendable (String, Bool) -> Void] = [:]
        /// Who hears recorded stops, by subscription number.
        var stopObservers: [Int: @Sendable (String, StopRequest) -> Void] = [:]
    }

    public let configuration: Configuration
    let catalog: RunCatalog
    let logger: Logger
    let state: Mutex<State>
    let stateFile: RunStateFile
    let tasks = OwnedTasks()
    let rpcChannels = RpcChannels()

    var logDirectory: String { configuration.dataDirectory + "/runs" }

    /// Creates the supervisor and subscribes it to the catalog's changes (subscribe before the catalog starts).
    public init(configuration: Configuration, catalog: RunCatalog, logger: Logger = Logger(label: "ralph-mobile.supervisor")) {
        self.configuration = configuration
        self.catalog = catalog
        self.logger = logger
        for directory in [configuration.dataDirectory + "/state", configuration.dataDirectory + "/runs"] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                logger.error("cannot create \(directory): \(error)")
            }
        }
        stateFile = RunStateFile(path: configuration.dataDirectory + "/state/runs.json", logger: logger)
        var lifecycle = RunLifecycle()
        do {
            if let persisted = try stateFile.load() { lifecycle = RunLifecycle(restoring: persisted) }
        } catch {
            logger.warning("ignoring unreadable \(stateFile.path): \(error)")
        }
        state = Mutex(State(lifecycle: lifecycle))
        catalog.subscribe(self)
    }

    // MARK: - Events in, actions out

    /// Feeds `event` to the lifecycle and carries out what it answers.
    func handle(_ event: RunLifecycle.Event) {
        let (actions, persisted) = state.withLock { s -> ([RunLifecycle.Action], (RunSupervisor.Persisted, Int)?) in
            let actions = s.lifecycle.handle(event)
            // The state to write is taken with its version under the same lock that changed it.
            return (actions, actions.contains(.persist) ? (s.lifecycle.persisted, s.lifecycle.version) : nil)
        }
        if let persisted { stateFile.submit(persisted.0, version: persisted.1) }
        perform(actions)
    }

    func perform(_ actions: [RunLifecycle.Action]) {
        for action in actions {
            switch action {
            case .persist:
                break  // submitted by ``handle(_:)`` with the state it came with
            case .scheduleWeakEvidence(let pendingID, let delay):
                own("the weak-evidence timer of \(pendingID)") { [self] in
                    do {
                        try await Task.sleep(for: delay)
                    } catch {
                        return  // shutting down
                    }
                    handle(.weakEvidenceDue(pendingID: pendingID))
                }
            case .synchronizeCatalog(let pendingID):
                own("reading the disk after \(pendingID) ended") { [self] in
                    await catalog.synchronize()
                    handle(.caughtUpAfterExit(pendingID: pendingID))
                }
            case .resolved(let pendingID, let runID):
                logger.info("run \(runID) started (pending id \(pendingID))")
                assignStartedConfig(pendingID: pendingID, runID: runID)
                answerStart(pendingID, with: .run(runID))
            case .endedWithoutRun(let pendingID, let exit):
                answerStart(pendingID, with: .ended(exit))
            case .catchUp(let runID):
                own("catching up run \(runID)") { [self] in await catalog.catchUp(id: runID) }
            case .pauseChanged(let id, let paused):
                let observers = state.withLock { Array($0.pauseObservers.values) }
                for observer in observers { observer(id, paused) }
            case .stopChanged(let id, let request):
                let observers = state.withLock { Array($0.stopObservers.values) }
                for observer in observers { observer(id, request) }
            }
        }
    }

    /// Starts `body` as a task owned by ``tasks``; once shutdown began nothing starts, and that is logged (what it
    /// would have done is left to the next server process, which reads the disk again).
    func own(_ what: String, _ body: @escaping @Sendable () async -> Void) {
        if !tasks.spawn(body) { logger.notice("shutting down: not starting \(what)") }
    }

    /// Hears the catalog (on its thread): a change matters only while a start is being matched or someone watches
    /// the run's workspace.
    public func catalogDidChange(_ change: RunCatalog.Change) {
        let (matching, watches) = state.withLock { ($0.lifecycle.isMatchingAny, $0.watches) }
        switch change {
        case .added(let snapshot), .appended(let snapshot, _), .updated(let snapshot), .reset(let snapshot):
            for watch in watches.values where watch.covers(snapshot.location.workspace) { watch.notify() }
            if matching { handle(.runSeen(Self.sighting(snapshot))) }
        case .removed(let id):
            if matching { handle(.runRemoved(id: id)) }
        }
    }

    /// Starts watching catalog changes to the runs of `workspace` and its worktrees; end with ``endWatch(_:)``.
    public func watchChanges(inWorkspace workspace: String) -> WorkspaceChangeWatch {
        state.withLock { s in
            s.nextKey += 1
            let watch = WorkspaceChangeWatch(workspace: workspace, key: s.nextKey)
            s.watches[s.nextKey] = watch
            return watch
        }
    }

    public func endWatch(_ watch: WorkspaceChangeWatch) {
        _ = state.withLock { $0.watches.removeValue(forKey: watch.key) }
    }

    static func sighting(_ snapshot: RunSnapshot) -> RunSighting {
        RunSighting(id: snapshot.id, workspace: snapshot.location.workspace, isCurrent: snapshot.isCurrent, lockPID: snapshot.liveness.pid)
    }

    // MARK: - Lookups

    /// The started run with this pending id, run id, or a unique prefix (4+ chars) of either.
    public func startedRun(matching text: String) -> StartedRun? {
        let key = text.lowercased()
        return state.withLock { s in
            let started = s.lifecycle.started
            if let exact = started[key] { return exact }
            if let byRun = started.values.first(where: { $0.runID == key }) { return byRun }
            guard key.count >= RunID.minimumPrefixLength else { return nil }
            let matches = started.values.filter { $0.pendingID.hasPrefix(key) }
            return matches.count == 1 ? matches[0] : nil
        }
    }

    /// Started runs whose events file has not appeared yet and whose process is alive, as sessions.
    public func pendingSessions(now: Date = Date()) -> [Session] {
        state.withLock { s in
            s.lifecycle.started.values.filter { $0.runID == nil && $0.exit == nil && s.children[$0.pendingID] != nil }.map { run in
                let started = Timestamp.parse(run.startedAt) ?? now
                return Session(
                    id: run.pendingID, iteration: 0, total: nil, hat: nil, elapsedSecs: max(0, Int(now.timeIntervalSince(started))), mode: .live,
                    status: .starting, startedAt: run.startedAt, lastEventAt: nil, eventCount: 0, taskName: nil,
                    workspace: FileSystem.relative(run.workingDirectory, to: run.root), path: "", pid: run.pid
                )
            }
        }
    }

    /// Whether the process of a started run is still running.
    public func isRunning(_ run: StartedRun) -> Bool {
        run.exit == nil && ProcessInspector.isAlive(run.pid, startTicks: run.startTicks)
    }

    // MARK: - Persistence and shutdown

    /// Waits until the state file holds every change made so far (a pause answered is a pause a restart keeps).
    public func persisted() async {
        await stateFile.flushed(through: state.withLock { $0.lifecycle.version })
    }

    /// Cancels and awaits every task run control started (timers, exit watchers, catalog requests), answers the
    /// callers still waiting for a start, and waits until the state file is written. Children keep running: ralph
    /// outlives a server restart.
    public func shutdown() async {
        await tasks.shutdown()
        // Stops under way end within their grace periods; their callers hear the outcome.
        for stop in state.withLock({ Array($0.stopping.values) }) { _ = await stop.result }
        let waiters = state.withLock { s -> [CheckedContinuation<StartResolution?, Never>] in
            defer { s.startWaiters = [:] }
            return s.startWaiters.values.flatMap(\.values)
        }
        waiters.forEach { $0.resume(returning: nil) }
        await persisted()
    }
}
