import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Liveness and workspace configuration: which runs are live, announced when that changes.
extension CatalogEngine {
    /// Re-probes liveness (all state directories, or the dirty ones), announcing runs whose view changed.
    func probeLiveness(all: Bool) {
        refreshUserDefaults()
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
                after.livenessBox = state.livenessBox
                after.config = state.config
                if before.isLive && !after.isLive {
                    // Deliver the run's last lines before announcing that it ended (for a run still awaiting its
                    // background fold: folded now, then read on).
                    if tail.awaitingFold { foldNow(tail) } else { _ = readNew(tail, announce: true) }
                }
                let changed = catalog.shared.withLock { s -> RunSnapshot? in
                    guard s.runs.contains(id) else { return nil }
                    s.runs[id]!.livenessBox = state.livenessBox
                    s.runs[id]!.config = state.config
                    return s.runs[id]
                }
                if let changed, before.isLive != changed.isLive || before.liveness.pid != changed.liveness.pid
                    || before.isCurrent != changed.isCurrent || before.config != changed.config || before.liveness.robot != changed.liveness.robot
                    || before.liveness.suspension != changed.liveness.suspension || before.liveness.stopRequestedAt != changed.liveness.stopRequestedAt
                {
                    catalog.announce(.updated(changed))
                }
            }
        }
    }

    /// Re-reads the workspace config when its file changed; true if the parsed values changed. A config that is there
    /// but cannot be read counts as none, and is logged (once, until the reason changes).
    func refreshConfig(_ state: inout StateDirectory) -> Bool {
        let root = RootDirectory(path: state.root)
        guard let file = WorkspaceConfig.file(in: state.workspace, root: root) else { return clearConfig(&state, problem: nil) }
        let status: FileSystem.Status
        do throws(ConfinementError) {
            guard let found = try root.status(file) else { return clearConfig(&state, problem: nil) }
            status = found
        } catch {
            return clearConfig(&state, problem: "cannot stat \(file): \(error)")
        }
        if let stamp = state.configStamp, stamp.path == file, stamp.modified == status.modified, stamp.size == status.size,
            state.userDefaultsGeneration == userDefaults.generation
        {
            return false
        }
        let parsed: WorkspaceConfig?
        do throws(ConfinementError) {
            parsed = try WorkspaceConfig.load(in: state.workspace, root: root, defaults: userDefaults.mapping)?.config
        } catch {
            return clearConfig(&state, problem: "cannot read \(file): \(error)")
        }
        state.configStamp = (file, status.modified, status.size)
        state.userDefaultsGeneration = userDefaults.generation
        state.configProblem = nil
        if parsed == nil { logger.debug("workspace config is not a YAML mapping", metadata: ["file": "\(file)"]) }
        let changed = parsed != state.config
        state.config = parsed
        return changed
    }

    /// No config of the workspace's own (none there, or `problem` when it could not be read: logged when it is new):
    /// the user's defaults alone, as ralph runs without a `ralph.yml`.
    private func clearConfig(_ state: inout StateDirectory, problem: String?) -> Bool {
        if let problem, problem != state.configProblem {
            logger.warning("the workspace config cannot be read; its runs show no config until it can", metadata: ["workspace": "\(state.workspace)", "error": "\(problem)"])
        }
        state.configProblem = problem
        let config = problem == nil ? userDefaultsConfig : nil
        let changed = state.config != config
        state.config = config
        state.configStamp = nil
        state.userDefaultsGeneration = userDefaults.generation
        return changed
    }
}
