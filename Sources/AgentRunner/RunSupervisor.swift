import Foundation
import Logging
import RalphAPI
import RalphFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts, stops, pauses and resumes ralph loops, and remembers what it did across restarts.
///
/// - Runs it starts are spawned with ``ChildProcess`` (own process group, output to a per-run log file) and matched to
///   the run file ralph creates: a file that did not exist before, whose `loop.lock` holder is the child — so a stale
///   `current-events` pointer from an earlier run cannot fool it.
/// - Stop and pause work for any live run whose loop process belongs to this user, started here or not: the process
///   is the `loop.lock` holder the catalog reports.
/// - What must survive a restart (started runs and their logs, paused runs) is kept in `<data-dir>/state/runs.json`.
public final class RunSupervisor: Sendable {
    public struct Configuration: Sendable {
        /// The ralph executable (a path, or a name looked up on PATH).
        public var ralphCommand = "ralph"
        /// Seconds between SIGTERM and SIGKILL when stopping.
        public var stopGrace: Double = 10
        /// Seconds `start` waits for ralph's events file before answering with a pending id.
        public var startTimeout: Double = 5
        /// A run's output log is truncated (with a note) when it grows past this many bytes.
        public var logLimit = 256 << 20
        public var dataDirectory: String
        /// The environment ralph runs with.
        public var environment: [String: String]

        public init(dataDirectory: String, environment: [String: String]) {
            self.dataDirectory = dataDirectory
            self.environment = environment
        }
    }

    /// A ralph started by this server.
    public struct StartedRun: Codable, Sendable, Equatable {
        /// Id answered before the run file existed; accepted by every session route.
        public var pendingID: String
        /// The session id, once ralph created its events file.
        public var runID: String?
        public var pid: Int
        public var startTicks: UInt64?
        public var workingDirectory: String
        public var root: String
        public var log: String
        public var startedAt: String
        public var arguments: [String]
        /// How the process ended, when it has.
        public var exit: String?

        enum CodingKeys: String, CodingKey {
            case pid, root, log, arguments, exit
            case pendingID = "pending_id"
            case runID = "run_id"
            case startTicks = "start_ticks"
            case workingDirectory = "working_directory"
            case startedAt = "started_at"
        }
    }

    /// A run this server paused (SIGSTOP).
    struct PausedRun: Codable, Sendable, Equatable {
        var id: String
        var pid: Int
        var startTicks: UInt64?
        var pausedAt: String

        enum CodingKeys: String, CodingKey {
            case id, pid
            case startTicks = "start_ticks"
            case pausedAt = "paused_at"
        }
    }

    struct Persisted: Codable {
        var started: [StartedRun]
        var paused: [PausedRun]
    }

    /// What a start request is to run: checked and resolved by the caller.
    public struct StartPlan: Sendable {
        public var workingDirectory: String
        public var root: String
        /// Arguments after the ralph command (`run -c … -P … --autonomous --no-tui …`).
        public var arguments: [String]

        public init(workingDirectory: String, root: String, arguments: [String]) {
            self.workingDirectory = workingDirectory
            self.root = root
            self.arguments = arguments
        }
    }

    public struct StartOutcome: Sendable, Equatable {
        public var id: String
        public var pending: Bool
        public var pid: Int
    }

    public struct StopOutcome: Sendable, Equatable {
        public var signal: String
        public var pid: Int
        public var terminated: Bool
    }

    public enum ControlError: Error, Equatable, CustomStringConvertible {
        case notRunning(String)
        case conflict(String)
        case forbidden(String)
        case spawnFailed(String)

        public var description: String {
            switch self {
            case .notRunning(let s), .conflict(let s), .forbidden(let s), .spawnFailed(let s): s
            }
        }
    }

    struct State {
        var started: [String: StartedRun] = [:]
        var children: [String: ChildProcess] = [:]
        var paused: [String: PausedRun] = [:]
        var stopping: [String: Task<StopOutcome, any Error>] = [:]
    }

    public let configuration: Configuration
    let catalog: RunCatalog
    let logger: Logger
    private let state = Mutex(State())
    private let persistQueue = DispatchQueue(label: "ralph-mobile.supervisor.persist")
    static let keptRuns = 200

    var stateFile: String { configuration.dataDirectory + "/state/runs.json" }
    var logDirectory: String { configuration.dataDirectory + "/runs" }

    public init(configuration: Configuration, catalog: RunCatalog, logger: Logger = Logger(label: "ralph-mobile.supervisor")) {
        self.configuration = configuration
        self.catalog = catalog
        self.logger = logger
        try? FileManager.default.createDirectory(atPath: configuration.dataDirectory + "/state", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: configuration.dataDirectory + "/runs", withIntermediateDirectories: true)
        if let bytes = FileSystem.readSmallFile(stateFile, limit: 16 << 20) {
            do {
                let persisted = try JSONDecoder().decode(Persisted.self, from: Data(bytes))
                state.withLock { s in
                    for run in persisted.started { s.started[run.pendingID] = run }
                    for run in persisted.paused { s.paused[run.id] = run }
                }
            } catch {
                logger.warning("ignoring unreadable \(stateFile): \(error)")
            }
        }
    }

    // MARK: - After the catalog's first pass

    /// Re-applies what a previous server process left: paused runs still stopped stay paused, others are dropped;
    /// started runs in nested directories are watched again.
    public func restore() async {
        let (paused, started) = state.withLock { (Array($0.paused.values), Array($0.started.values)) }
        for run in started { catalog.addWorkspace(run.workingDirectory, root: run.root) }
        for run in paused {
            if let process = ProcessInspector.snapshot(run.pid), !process.isZombie, process.startTicks == run.startTicks || run.startTicks == nil,
                process.isStopped
            {
                await catalog.setPaused(true, id: run.id)
                logger.info("run \(run.id) is still paused (pid \(run.pid))")
            } else {
                state.withLock { _ = $0.paused.removeValue(forKey: run.id) }
                logger.info("run \(run.id) is no longer paused (its process was resumed or ended while the server was down)")
            }
        }
        persist()
    }

    // MARK: - Start

    /// Spawns ralph and waits up to ``Configuration/startTimeout`` for its run file.
    public func start(_ plan: StartPlan) async throws(ControlError) -> StartOutcome {
        let pendingID = Self.randomID()
        let log = logDirectory + "/\(pendingID).log"
        catalog.addWorkspace(plan.workingDirectory, root: plan.root)
        // Every run already on disk must count as "before", however recently it was written.
        await catalog.synchronize()
        let before = Set(catalog.snapshots().map(\.id))
        var environment = configuration.environment
        environment = ChildEnvironment.scrubbed(environment)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                configuration.ralphCommand, arguments: plan.arguments, workingDirectory: plan.workingDirectory, environment: environment,
                logFile: log
            )
        } catch {
            throw .spawnFailed(error.description)
        }
        let run = StartedRun(
            pendingID: pendingID, runID: nil, pid: Int(child.pid), startTicks: ProcessInspector.snapshot(Int(child.pid))?.startTicks,
            workingDirectory: plan.workingDirectory, root: plan.root, log: log, startedAt: Timestamp.now(), arguments: plan.arguments, exit: nil
        )
        state.withLock {
            $0.started[pendingID] = run
            $0.children[pendingID] = child
        }
        persist()
        logger.notice("started \(child.executable) \(plan.arguments.joined(separator: " "))", metadata: ["pid": "\(child.pid)", "cwd": "\(plan.workingDirectory)"])
        watchExit(of: child, pendingID: pendingID)

        switch await waitForRun(child: child, before: before, workingDirectory: plan.workingDirectory, seconds: configuration.startTimeout) {
        case .found(let id):
            return StartOutcome(id: id, pending: false, pid: Int(child.pid))
        case .exited(let exit):
            let tail = Self.tail(of: log, lines: 15)
            throw .spawnFailed("\(child.executable) ended (\(exit)) before starting a run" + (tail.isEmpty ? "" : ": \(tail)"))
        case .timedOut:
            // Keep looking in the background; the pending id resolves when the run appears.
            Task { _ = await waitForRun(child: child, before: before, workingDirectory: plan.workingDirectory, seconds: 600) }
            return StartOutcome(id: pendingID, pending: true, pid: Int(child.pid))
        }
    }

    enum Wait: Equatable {
        case found(String)
        case exited(ChildProcess.Exit)
        case timedOut
    }

    /// Looks for the run the child created: a new run file in the working directory (or one of its worktrees) that
    /// `current-events` names and whose loop lock the child holds. Without the lock evidence after ``weakEvidenceDelay`` (a ralph that does not lock), the
    /// only new run that `current-events` names will do; and once the child has exited, the only new run.
    func waitForRun(child: ChildProcess, before: Set<String>, workingDirectory: String, seconds: Double) async -> Wait {
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let pendingID = state.withLock { s in s.children.first { $0.value === child }?.key }
        func newRuns() -> [RunSnapshot] {
            catalog.snapshots().filter {
                !before.contains($0.id)
                    && ($0.location.workspace == workingDirectory || $0.location.workspace.hasPrefix(workingDirectory + "/.worktrees/"))
            }
        }
        var lookedAfterExit = false
        while true {
            let exit = child.exit
            if exit != nil, !lookedAfterExit {
                // A short run can end before the catalog has noticed its file: let it read the disk before deciding.
                lookedAfterExit = true
                await catalog.synchronize()
            }
            let candidates = newRuns()
            // Liveness is per workspace: every run there has the same lock holder, so the pointer must name the run too.
            var match = candidates.first { $0.isCurrent && $0.liveness.pid == Int(child.pid) }
            if match == nil, candidates.count == 1, candidates[0].isCurrent, ContinuousClock.now - start >= Self.weakEvidenceDelay { match = candidates[0] }
            if match == nil, exit != nil, candidates.count == 1 { match = candidates[0] }
            if let match {
                if let pendingID { resolve(pendingID, to: match.id) }
                return .found(match.id)
            }
            if let exit { return .exited(exit) }
            if ContinuousClock.now >= deadline { return .timedOut }
            try? await Task.sleep(for: .milliseconds(25))
        }
    }

    /// How long a start waits for the lock-holder evidence before accepting the `current-events` pointer alone.
    static let weakEvidenceDelay: Duration = .seconds(2)

    private func resolve(_ pendingID: String, to runID: String) {
        let changed = state.withLock { s -> Bool in
            guard s.started[pendingID]?.runID == nil else { return false }
            s.started[pendingID]?.runID = runID
            return true
        }
        if changed {
            logger.info("run \(runID) started (pending id \(pendingID))")
            persist()
        }
    }

    private func watchExit(of child: ChildProcess, pendingID: String) {
        let log = logDirectory + "/\(pendingID).log"
        let limit = configuration.logLimit
        let logger = self.logger
        let guardTask = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                if Self.truncateIfOver(log, limit: limit) { logger.notice("log of \(pendingID) passed \(limit) bytes and was truncated") }
            }
        }
        Task {
            defer { guardTask.cancel() }
            let exit = await child.waitForExit()
            state.withLock { s in
                s.started[pendingID]?.exit = exit.description
                s.children[pendingID] = nil
            }
            logger.info("ralph (pid \(child.pid)) ended: \(exit)")
            persist()
            if let runID = state.withLock({ $0.started[pendingID]?.runID }) { await catalog.catchUp(id: runID) }
        }
    }

    // MARK: - Lookups

    /// The started run with this pending id, run id, or a unique prefix (4+ chars) of either.
    public func startedRun(matching text: String) -> StartedRun? {
        let key = text.lowercased()
        return state.withLock { s in
            if let exact = s.started[key] { return exact }
            if let byRun = s.started.values.first(where: { $0.runID == key }) { return byRun }
            guard key.count >= RunID.minimumPrefixLength else { return nil }
            let matches = s.started.values.filter { $0.pendingID.hasPrefix(key) }
            return matches.count == 1 ? matches[0] : nil
        }
    }

    /// Started runs whose events file has not appeared yet and whose process is alive, as sessions.
    public func pendingSessions(now: Date = Date()) -> [Session] {
        state.withLock { s in
            s.started.values.filter { $0.runID == nil && $0.exit == nil && s.children[$0.pendingID] != nil }.map { run in
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

    // MARK: - Stop

    /// Stops a run: SIGTERM to its process group, up to ``Configuration/stopGrace`` for ralph to write
    /// `loop.terminate` and exit, then SIGKILL. A second stop of the same run joins the first.
    public func stop(sessionID: String) async throws -> StopOutcome {
        let task = try state.withLock { s throws(ControlError) -> Task<StopOutcome, any Error> in
            if let running = s.stopping[sessionID] { return running }
            let target = try stopTarget(sessionID: sessionID, state: s)
            let task = Task { try await self.performStop(sessionID: sessionID, process: target) }
            s.stopping[sessionID] = task
            return task
        }
        defer { state.withLock { _ = $0.stopping.removeValue(forKey: sessionID) } }
        return try await task.value
    }

    /// The process to stop for a session (a run id, or a pending id).
    private func stopTarget(sessionID: String, state s: State) throws(ControlError) -> ProcessSnapshot {
        var pid: Int?
        var ticks: UInt64?
        if let started = s.started[sessionID] ?? s.started.values.first(where: { $0.runID == sessionID }), started.exit == nil {
            pid = started.pid
            ticks = started.startTicks
        }
        if pid == nil, let snapshot = catalog.snapshot(id: sessionID) {
            guard snapshot.isLive else { throw .notRunning("session \(sessionID) is not running (\(snapshot.status.rawValue))") }
            pid = snapshot.liveness.pid
        }
        guard let pid, let process = ProcessInspector.snapshot(pid), !process.isZombie, ticks == nil || process.startTicks == ticks else {
            throw .notRunning("session \(sessionID) has no running loop process")
        }
        guard !ProcessInspector.isCurrentProcess(process) else {
            throw .forbidden("the loop lock of session \(sessionID) is held by this server's own process; refusing to signal it")
        }
        guard ProcessInspector.belongsToCurrentUser(process) else {
            throw .forbidden("the loop process \(pid) belongs to another user")
        }
        return process
    }

    private func performStop(sessionID: String, process: ProcessSnapshot) async throws -> StopOutcome {
        let target = ProcessInspector.signalTarget(for: process)
        logger.notice("stopping session \(sessionID): SIGTERM to \(target < 0 ? "process group \(-target)" : "pid \(target)")")
        kill(target, SIGTERM)
        // A stopped (paused) process only sees SIGTERM once it continues.
        kill(target, SIGCONT)
        var signal = "SIGTERM"
        if !(await waitUntilGone(process, seconds: configuration.stopGrace)) {
            logger.notice("session \(sessionID) did not stop within \(configuration.stopGrace)s; SIGKILL")
            kill(target, SIGKILL)
            signal = "SIGKILL"
            _ = await waitUntilGone(process, seconds: 5)
        }
        let runID = state.withLock { s in (s.started[sessionID]?.runID) ?? s.started.values.first { $0.runID == sessionID }?.runID } ?? sessionID
        state.withLock { _ = $0.paused.removeValue(forKey: runID) }
        persist()
        await catalog.setPaused(false, id: runID)
        await catalog.catchUp(id: runID)
        let terminated = catalog.snapshot(id: runID)?.state.termination != nil
        return StopOutcome(signal: signal, pid: process.pid, terminated: terminated)
    }

    /// Waits until the process has exited (and, for our own children, been reaped).
    private func waitUntilGone(_ process: ProcessSnapshot, seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if !ProcessInspector.isAlive(process.pid, startTicks: process.startTicks) {
                // Our own child: wait for the reaper so the process table has no zombie left when we answer.
                let child = state.withLock { s in s.children.values.first { Int($0.pid) == process.pid } }
                if let child {
                    var waited = 0
                    while child.exit == nil && waited < 100 {
                        try? await Task.sleep(for: .milliseconds(10))
                        waited += 1
                    }
                }
                return true
            }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return !ProcessInspector.isAlive(process.pid, startTicks: process.startTicks)
    }

    // MARK: - Pause and resume

    /// SIGSTOP to the loop's process group; the run shows as `paused` until resumed, across server restarts too.
    public func pause(sessionID: String) async throws(ControlError) -> Int {
        guard let snapshot = catalog.snapshot(id: sessionID), snapshot.isLive else {
            throw .notRunning("session \(sessionID) is not running")
        }
        if snapshot.isPaused || state.withLock({ $0.paused[sessionID] != nil }) { throw .conflict("session \(sessionID) is already paused") }
        let process = try stopTarget(sessionID: sessionID, state: state.withLock { $0 })
        kill(ProcessInspector.signalTarget(for: process), SIGSTOP)
        state.withLock { $0.paused[sessionID] = PausedRun(id: sessionID, pid: process.pid, startTicks: process.startTicks, pausedAt: Timestamp.now()) }
        persist()
        await persisted()
        await catalog.setPaused(true, id: sessionID)
        logger.notice("paused session \(sessionID) (pid \(process.pid))")
        return process.pid
    }

    /// SIGCONT to the loop's process group. Says so when the run ended while paused.
    public func resume(sessionID: String) async throws(ControlError) -> Int {
        guard let paused = state.withLock({ $0.paused[sessionID] }) else {
            if let snapshot = catalog.snapshot(id: sessionID), !snapshot.isLive {
                throw .notRunning("session \(sessionID) is not running (\(snapshot.status.rawValue))")
            }
            throw .conflict("session \(sessionID) is not paused")
        }
        state.withLock { _ = $0.paused.removeValue(forKey: sessionID) }
        persist()
        await persisted()
        await catalog.setPaused(false, id: sessionID)
        guard let process = ProcessInspector.snapshot(paused.pid), !process.isZombie, !ProcessInspector.isCurrentProcess(process),
            paused.startTicks == nil || process.startTicks == paused.startTicks
        else {
            await catalog.catchUp(id: sessionID)
            throw .notRunning("session \(sessionID) ended while it was paused")
        }
        kill(ProcessInspector.signalTarget(for: process), SIGCONT)
        logger.notice("resumed session \(sessionID) (pid \(process.pid))")
        return process.pid
    }

    // MARK: - Other ralph commands

    /// What a finished command printed.
    public struct CommandOutput: Sendable {
        public var exit: ChildProcess.Exit
        /// stdout and stderr together (at most the last 1 MiB).
        public var text: String
    }

    /// Runs `ralph <arguments>` in `directory` and waits (without blocking) for it to finish; after `timeout` seconds
    /// its process group is killed.
    public func runRalphCommand(_ arguments: [String], in directory: String, timeout: Double) async throws(ControlError) -> CommandOutput {
        let log = logDirectory + "/command-\(Self.randomID()).log"
        defer { unlink(log) }
        var environment = configuration.environment
        environment = ChildEnvironment.scrubbed(environment)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(configuration.ralphCommand, arguments: arguments, workingDirectory: directory, environment: environment, logFile: log)
        } catch {
            throw .spawnFailed(error.description)
        }
        logger.info("running \(child.executable) \(arguments.joined(separator: " "))", metadata: ["cwd": "\(directory)"])
        let timer = Task {
            try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
            kill(-child.pid, SIGKILL)
        }
        let exit = await child.waitForExit()
        timer.cancel()
        if exit == .signaled(SIGKILL), (try? await timer.value) != nil {
            throw .conflict("`ralph \(arguments.joined(separator: " "))` did not finish within \(Int(timeout)) seconds and was stopped")
        }
        let size = FileSystem.status(log)?.size ?? 0
        let chunk = Self.readTail(log, bytes: min(size, 1 << 20))
        return CommandOutput(exit: exit, text: chunk)
    }

    static func readTail(_ path: String, bytes: Int) -> String {
        guard bytes > 0, let size = FileSystem.status(path)?.size else { return "" }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: bytes)
        let n = buffer.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: max(0, size - bytes)) }
        return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
    }

    // MARK: - Persistence

    /// Writes the state file on the serial persistence queue. The state is read when the write runs, not when it is
    /// asked for, so a later write never carries an older state than an earlier one.
    private func persist() {
        let path = stateFile
        let logger = self.logger
        persistQueue.async { [self] in
            let snapshot = state.withLock { s in
                Persisted(
                    started: Array(s.started.values.sorted { $0.startedAt > $1.startedAt }.prefix(Self.keptRuns)),
                    paused: Array(s.paused.values)
                )
            }
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                try encoder.encode(snapshot).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                logger.error("cannot save \(path): \(error)")
            }
        }
    }

    /// Waits until the state file holds every change made so far (a pause answered is a pause a restart keeps).
    public func persisted() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            persistQueue.async { continuation.resume() }
        }
    }

    /// Truncates a log that grew past `limit` bytes and notes it. The child writes with O_APPEND, so its next write
    /// lands at the new end. Returns true if it truncated.
    static func truncateIfOver(_ path: String, limit: Int) -> Bool {
        guard let size = FileSystem.status(path)?.size, size > limit else { return false }
        guard truncate(path, 0) == 0 else { return false }
        try? EventFileAppender.append(line: Array("[ralph-mobile: the log passed \(limit) bytes and was truncated here]".utf8), to: path)
        return true
    }

    static func randomID() -> String {
        String(format: "%016llx", UInt64.random(in: 0...UInt64.max))
    }

    /// The last `lines` lines of a log file, joined with " | " (for error messages).
    static func tail(of path: String, lines: Int) -> String {
        guard let status = FileSystem.status(path) else { return "" }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        let count = min(status.size, 8192)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: status.size - count) }
        guard n > 0 else { return "" }
        let text = String(decoding: bytes[0..<n], as: UTF8.self)
        return text.split(separator: "\n").suffix(lines).joined(separator: " | ")
    }
}
