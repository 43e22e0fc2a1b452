import Foundation
import RalphFiles

/// The config a started run was given (`ralph run -c <file>`) is what its `total` and hats' `publishes` come from —
/// not the workspace's `ralph.yml`, which a preset overrides. Run control knows the file (it built the arguments) and
/// tells the catalog once the run's file is known, and again after a restart.
extension RunSupervisor {
    /// The `-c` file of a started run's arguments, as it was given (already confined to the roots when the run was
    /// started); nil for `builtin:` presets and runs without one.
    static func configFile(of run: StartedRun) -> String? {
        guard let flag = run.arguments.firstIndex(where: { $0 == "-c" || $0 == "--config" }), flag + 1 < run.arguments.count else { return nil }
        let file = run.arguments[flag + 1]
        guard !file.hasPrefix("builtin:") else { return nil }
        return file.hasPrefix("/") ? file : FileSystem.join(run.workingDirectory, file)
    }

    /// Reads the config `pendingID` was started with and gives it to the catalog for `runID` — unless it is the
    /// workspace's own `ralph.yml`/`ralph.yaml`, which the catalog already follows (and re-reads when it changes).
    func assignStartedConfig(pendingID: String, runID: String) {
        guard let run = state.withLock({ $0.lifecycle.started[pendingID] }), let file = Self.configFile(of: run) else { return }
        guard !RalphLayout(workspace: run.workingDirectory).configFiles.contains(file) else { return }
        guard let config = WorkspaceConfig.load(startedWith: file, userConfigFile: catalog.userConfigFile) else {
            logger.notice("run \(runID): its config \(file) cannot be read now; total and publishes come from the workspace's")
            return
        }
        catalog.assignRunConfig(config, toRun: runID)
    }
}
