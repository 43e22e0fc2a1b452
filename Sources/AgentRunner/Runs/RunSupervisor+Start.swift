import Foundation
import Logging
import RalphAPI
import RalphFiles

/// Starting ralph, and waiting (without polling) for the run it creates.
extension RunSupervisor {
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
        let (child, arguments) = try spawnRun(plan, pendingID: pendingID, log: log, environment: environment)
        let run = StartedRun(
            pendingID: pendingID, runID: nil, pid: Int(child.pid), startTicks: ProcessInspector.snapshot(Int(child.pid))?.startTicks,
            workingDirectory: plan.workingDirectory, root: plan.root, log: log, startedAt: Timestamp.now(), arguments: arguments, exit: nil
        )
        var metadata: Logger.Metadata = ["pid": "\(child.pid)", "cwd": "\(plan.workingDirectory)", "pending_id": "\(pendingID)"]
        if let requestID = plan.requestID { metadata["request_id"] = "\(requestID)" }
        logger.notice("started \(child.executable) \(arguments.joined(separator: " "))", metadata: metadata)
        register(run, child: child, before: before)
        watch(child, pendingID: pendingID, log: log)

        switch await waitForStart(pendingID: pendingID, timeout: .milliseconds(Int(configuration.startTimeout * 1000))) {
        case .run(let id):
            return StartOutcome(id: id, pending: false, pid: Int(child.pid))
        case .ended(let exit):
            let tail = Self.tail(of: log, lines: 15)
            throw .spawnFailed("\(child.executable) ended (\(exit)) before starting a run" + (tail.isEmpty ? "" : ": \(tail)"))
        case nil:
            // The lifecycle keeps matching; the pending id resolves when the run appears.
            return StartOutcome(id: pendingID, pending: true, pid: Int(child.pid))
        }
    }

    /// Records the start and begins matching it, with what the catalog shows now read under the same lock that
    /// registers it: a change announced later is heard, one announced earlier is in what is read.
    private func register(_ run: StartedRun, child: ChildProcess, before: Set<String>) {
        let (actions, persisted) = state.withLock { s -> ([RunLifecycle.Action], (Persisted, Int)) in
            s.children[run.pendingID] = child
            let runs = catalog.snapshots().filter { !before.contains($0.id) }.map(Self.sighting)
            let actions = s.lifecycle.handle(.started(run, before: before, runs: runs))
            return (actions, (s.lifecycle.persisted, s.lifecycle.version))
        }
        stateFile.submit(persisted.0, version: persisted.1)
        perform(actions)
    }

    /// Owned tasks for a child: one waits for its exit (and tells the lifecycle), one keeps its log under the limit.
    private func watch(_ child: ChildProcess, pendingID: String, log: String) {
        let limit = configuration.logLimit
        let logger = self.logger
        own("the log guard of \(pendingID)") {
            // A size guard, not a state poll: the log only ever needs checking while the child writes to it.
            while child.exit == nil {
                do {
                    try await Task.sleep(for: .seconds(5))
                } catch {
                    return
                }
                do {
                    if try Self.truncateIfOver(log, limit: limit) { logger.notice("log of \(pendingID) passed \(limit) bytes and was truncated") }
                } catch {
                    logger.error("log of \(pendingID) was truncated but the note could not be written: \(error)")
                }
            }
        }
        own("watching the exit of pid \(child.pid)") { [self] in
            // Cancelled at shutdown: the child outlives the server, and the next server sees its end in the catalog.
            guard let exit = await child.waitForExitUnlessCancelled() else { return }
            state.withLock { _ = $0.children.removeValue(forKey: pendingID) }
            logger.info("ralph (pid \(child.pid)) ended: \(exit)")
            handle(.childExited(pendingID: pendingID, exit))
        }
    }

    /// How a start resolved: its run, or its end without one; nil if neither within `timeout` (or for a start this
    /// server process is not matching, e.g. one from before a restart that never resolved).
    public func waitForStart(pendingID: String, timeout: Duration) async -> StartResolution? {
        await withDeadline(timeout) { await self.startResolution(pendingID: pendingID) }
    }

    /// Waits until the start resolves; nil when the task is cancelled or the supervisor shuts down.
    private func startResolution(pendingID: String) async -> StartResolution? {
        let waiter = state.withLock { s -> Int in
            s.nextKey += 1
            return s.nextKey
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StartResolution?, Never>) in
                let now = state.withLock { s -> StartResolution?? in
                    if let run = s.lifecycle.started[pendingID], let runID = run.runID { return .some(.run(runID)) }
                    if let resolution = s.endedStarts[pendingID] { return .some(.ended(resolution)) }
                    if s.lifecycle.matching[pendingID] == nil || Task.isCancelled { return .some(nil) }
                    s.startWaiters[pendingID, default: [:]][waiter] = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.startWaiters[pendingID]?.removeValue(forKey: waiter) }
            continuation?.resume(returning: nil)
        }
    }

    /// Answers everyone waiting for a start.
    func answerStart(_ pendingID: String, with resolution: StartResolution) {
        let waiters = state.withLock { s -> [CheckedContinuation<StartResolution?, Never>] in
            if case .ended(let exit) = resolution { s.endedStarts[pendingID] = exit }
            return Array((s.startWaiters.removeValue(forKey: pendingID) ?? [:]).values)
        }
        waiters.forEach { $0.resume(returning: resolution) }
    }
}
