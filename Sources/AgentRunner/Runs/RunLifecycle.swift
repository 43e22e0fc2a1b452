import RalphAPI
import RalphFiles

/// What run control needs to know of a run the catalog reports, to match it to a start.
public struct RunSighting: Sendable, Equatable {
    public var id: String
    /// The run's workspace (canonical path).
    public var workspace: String
    /// Whether the workspace's `current-events` pointer names this run.
    public var isCurrent: Bool
    /// The holder of the workspace's `loop.lock`, if any.
    public var lockPID: Int?

    public init(id: String, workspace: String, isCurrent: Bool, lockPID: Int?) {
        self.id = id
        self.workspace = workspace
        self.isCurrent = isCurrent
        self.lockPID = lockPID
    }
}

/// The runs this server controls, as a value: fed events (a start, what the catalog sees, a child's exit, a pause),
/// it answers with the actions run control must carry out. Pure: no clock, no processes, no disk — the
/// ``RunSupervisor`` turns timers, catalog changes and exits into events and actions into effects.
///
/// A start is matched to the run file ralph creates: a run that did not exist before, in the working directory (or one
/// of its worktrees), that `current-events` names and whose `loop.lock` the child holds. Without the lock evidence
/// after ``weakEvidenceDelay`` (a ralph that does not lock), the only new current run will do; once the child has
/// exited and the catalog has read the disk, the only new run.
public struct RunLifecycle: Sendable, Equatable {
    /// A start not yet matched to its run.
    struct Matching: Sendable, Equatable {
        var pid: Int
        var workingDirectory: String
        var before: Set<String>
        /// New runs in the working directory, by id.
        var candidates: [String: RunSighting] = [:]
        var weakEvidence = false
        var exit: ChildProcess.Exit?
        /// The catalog read the disk after the exit, so a run the child created before exiting is known.
        var lookedAfterExit = false

        func admits(_ run: RunSighting) -> Bool {
            !before.contains(run.id) && RalphLayout(workspace: workingDirectory).covers(run.workspace)
        }
    }

    public enum Event: Sendable, Equatable {
        /// The server spawned `run` (no run id yet); `before` are the runs that existed, `runs` what the catalog shows now.
        case started(RunSupervisor.StartedRun, before: Set<String>, runs: [RunSighting])
        /// The catalog added or changed a run.
        case runSeen(RunSighting)
        case runRemoved(id: String)
        /// ``weakEvidenceDelay`` passed since the start.
        case weakEvidenceDue(pendingID: String)
        case childExited(pendingID: String, ChildProcess.Exit)
        /// The catalog re-read the disk after the child's exit.
        case caughtUpAfterExit(pendingID: String)
        case paused(RunSupervisor.PausedRun)
        /// Resumed, stopped, or found no longer stopped after a restart.
        case unpaused(id: String)
        /// After a restart: a run recorded as paused is still stopped.
        case stillPaused(id: String)
        /// A stop was asked of a run (graceful or forced); a later one replaces it.
        case stopRequested(id: String, StopRequest)
    }

    public enum Action: Sendable, Equatable {
        /// The persisted part changed: write it (``version`` says which state is newest).
        case persist
        case scheduleWeakEvidence(pendingID: String, after: Duration)
        /// Make the catalog read the disk, then send ``Event/caughtUpAfterExit(pendingID:)``.
        case synchronizeCatalog(pendingID: String)
        case resolved(pendingID: String, runID: String)
        case endedWithoutRun(pendingID: String, exit: ChildProcess.Exit)
        /// Make the catalog read a run's file and liveness now (its process ended).
        case catchUp(runID: String)
        case pauseChanged(id: String, paused: Bool)
        /// A stop was recorded for a run: tell the stop observers.
        case stopChanged(id: String, StopRequest)
    }

    /// How long a start waits for the lock-holder evidence before accepting the `current-events` pointer alone.
    public static let weakEvidenceDelay: Duration = .seconds(2)
    /// Started runs kept in the state file.
    static let keptRuns = 200

    private(set) var started: [String: RunSupervisor.StartedRun] = [:]
    private(set) var paused: [String: RunSupervisor.PausedRun] = [:]
    /// Paused runs read from the state file and not yet confirmed still stopped (``Event/stillPaused(id:)``): not
    /// shown as paused until then.
    private(set) var unconfirmed: Set<String> = []
    private(set) var matching: [String: Matching] = [:]
    /// Stops asked of runs, by run id (the newest ``keptRuns`` are kept).
    private(set) var stops: [String: StopRequest] = [:]
    /// Bumped whenever the persisted part changes.
    private(set) var version = 0

    public init() {}

    /// The state a previous server process left.
    init(restoring persisted: RunSupervisor.Persisted) {
        for run in persisted.started { started[run.pendingID] = run }
        for run in persisted.paused { paused[run.id] = run }
        for record in persisted.stops { stops[record.id] = record.request }
        unconfirmed = Set(paused.keys)
    }

    /// Whether the run shows as paused: paused here, or confirmed still stopped after a restart.
    func isPaused(_ id: String) -> Bool { paused[id] != nil && !unconfirmed.contains(id) }

    /// What the state file holds: the newest started runs, and the paused ones.
    var persisted: RunSupervisor.Persisted {
        RunSupervisor.Persisted(
            started: Array(started.values.sorted { ($0.startedAt, $0.pendingID) > ($1.startedAt, $1.pendingID) }.prefix(Self.keptRuns)),
            paused: paused.values.sorted { $0.id < $1.id },
            stops: stops.map { RunSupervisor.StopRecord(id: $0.key, request: $0.value) }.sorted { ($0.request.at, $0.id) > ($1.request.at, $1.id) }
                .prefix(Self.keptRuns).map { $0 }
        )
    }

    /// Whether a start is still being matched.
    var isMatchingAny: Bool { !matching.isEmpty }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .started(let run, let before, let runs):
            started[run.pendingID] = run
            version += 1
            var entry = Matching(pid: run.pid, workingDirectory: run.workingDirectory, before: before)
            for sighting in runs where entry.admits(sighting) { entry.candidates[sighting.id] = sighting }
            matching[run.pendingID] = entry
            return [.persist, .scheduleWeakEvidence(pendingID: run.pendingID, after: Self.weakEvidenceDelay)] + evaluate(run.pendingID)
        case .runSeen(let sighting):
            var actions: [Action] = []
            for key in matching.keys.sorted() where matching[key]!.admits(sighting) {
                matching[key]!.candidates[sighting.id] = sighting
                actions += evaluate(key)
            }
            return actions
        case .runRemoved(let id):
            for key in matching.keys { matching[key]!.candidates[id] = nil }
            return []
        case .weakEvidenceDue(let pendingID):
            guard matching[pendingID] != nil else { return [] }
            matching[pendingID]!.weakEvidence = true
            return evaluate(pendingID)
        case .childExited(let pendingID, let exit):
            var actions: [Action] = []
            if started[pendingID] != nil {
                started[pendingID]!.exit = exit.description
                version += 1
                actions.append(.persist)
                if let runID = started[pendingID]!.runID { actions.append(.catchUp(runID: runID)) }
            }
            if matching[pendingID] != nil {
                matching[pendingID]!.exit = exit
                actions.append(.synchronizeCatalog(pendingID: pendingID))
            }
            return actions
        case .caughtUpAfterExit(let pendingID):
            guard matching[pendingID] != nil else { return [] }
            matching[pendingID]!.lookedAfterExit = true
            return evaluate(pendingID)
        case .paused(let run):
            paused[run.id] = run
            unconfirmed.remove(run.id)
            version += 1
            return [.persist, .pauseChanged(id: run.id, paused: true)]
        case .unpaused(let id):
            unconfirmed.remove(id)
            guard paused.removeValue(forKey: id) != nil else { return [] }
            version += 1
            return [.persist, .pauseChanged(id: id, paused: false)]
        case .stillPaused(let id):
            guard paused[id] != nil, unconfirmed.remove(id) != nil else { return [] }
            return [.pauseChanged(id: id, paused: true)]
        case .stopRequested(let id, let request):
            stops[id] = request
            version += 1
            return [.persist, .stopChanged(id: id, request)]
        }
    }

    /// Matches a start if the evidence allows, or gives it up once its child ended without a run.
    private mutating func evaluate(_ pendingID: String) -> [Action] {
        guard let entry = matching[pendingID] else { return [] }
        let candidates = entry.candidates.values.sorted { $0.id < $1.id }
        // Liveness is per workspace: every run there has the same lock holder, so the pointer must name the run too.
        var match = candidates.first { $0.isCurrent && $0.lockPID == entry.pid }
        if match == nil, candidates.count == 1, candidates[0].isCurrent, entry.weakEvidence { match = candidates[0] }
        if match == nil, entry.exit != nil, entry.lookedAfterExit, candidates.count == 1 { match = candidates[0] }
        if let match {
            matching[pendingID] = nil
            started[pendingID]?.runID = match.id
            version += 1
            var actions: [Action] = [.persist, .resolved(pendingID: pendingID, runID: match.id)]
            // It ended already: the catalog must see that too.
            if entry.exit != nil { actions.append(.catchUp(runID: match.id)) }
            return actions
        }
        if let exit = entry.exit, entry.lookedAfterExit {
            matching[pendingID] = nil
            return [.endedWithoutRun(pendingID: pendingID, exit: exit)]
        }
        return []
    }
}
