import Foundation

/// The user's default config (`~/.ralph/config.yml`, ralph ≥ 2.8) under every workspace's own: re-read when its file
/// changes (checked with each liveness pass), and every workspace's config recomputed then.
extension CatalogEngine {
    /// What is known of the user's defaults file.
    struct UserDefaults {
        var stamp: (modified: Date, size: Int)?
        var mapping: [String: Any]?
        /// Bumped whenever ``mapping`` changes, so each state directory knows whether its config is up to date.
        var generation = 0
        var problem: String?
    }

    /// Re-reads the user's defaults when the file changed (appeared, changed or went).
    func refreshUserDefaults() {
        guard let path = configuration.userConfigFile else { return }
        let status = FileSystem.status(path)
        let stamp = status.map { ($0.modified, $0.size) }
        if let old = userDefaults.stamp, let stamp, old.modified == stamp.0, old.size == stamp.1 { return }
        if userDefaults.stamp == nil, stamp == nil, userDefaults.generation > 0 { return }
        userDefaults.stamp = stamp
        userDefaults.generation += 1
        switch WorkspaceConfig.loadUserDefaults(path) {
        case .success(let mapping):
            userDefaults.mapping = mapping
            userDefaults.problem = nil
        case .failure(let problem):
            if problem.description != userDefaults.problem {
                logger.warning("the user's default config is not used", metadata: ["problem": "\(problem)"])
            }
            userDefaults.mapping = nil
            userDefaults.problem = problem.description
        }
    }

    /// The config of a workspace that has no `ralph.yml`: the user's defaults alone (nil without them).
    var userDefaultsConfig: WorkspaceConfig? {
        userDefaults.mapping.map { WorkspaceConfig.parse(mapping: $0, path: configuration.userConfigFile) }
    }
}
