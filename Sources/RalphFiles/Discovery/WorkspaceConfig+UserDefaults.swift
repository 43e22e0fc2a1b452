import Foundation

/// ralph's user-scoped default config (ralph ≥ 2.8): `$HOME/.ralph/config.yml`, loaded before the workspace's
/// `ralph.yml` and deep-merged under it (mappings merged key by key, anything else replaced by the workspace's value;
/// upstream `config_resolution.rs`). A workspace without a `ralph.yml` runs on the user's defaults alone.
extension WorkspaceConfig {
    /// `$HOME/.ralph/config.yml`, for the home directory in `environment` (nil without one).
    public static func userDefaultsFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.ralph/config.yml"
    }

    /// ralph's merge: `overlay` wins; where both hold a mapping, the two are merged the same way.
    public static func merge(_ base: [String: Any], _ overlay: [String: Any]) -> [String: Any] {
        var merged = base
        for (key, value) in overlay {
            if let inner = value as? [String: Any], let under = merged[key] as? [String: Any] {
                merged[key] = merge(under, inner)
            } else {
                merged[key] = value
            }
        }
        return merged
    }

    /// The user's defaults file read and parsed: its mapping (nil when there is no file), or why it cannot be used.
    /// ralph refuses to start on a user config it cannot parse; here that config is reported and left out.
    public static func loadUserDefaults(_ path: String) -> Result<[String: Any]?, UserDefaultsProblem> {
        guard let status = FileSystem.status(path) else { return .success(nil) }
        guard status.isRegularFile else { return .failure(UserDefaultsProblem(path: path, reason: "not a regular file")) }
        guard let text = FileSystem.readText(path, limit: 1 << 20) else { return .failure(UserDefaultsProblem(path: path, reason: "cannot be read")) }
        guard let mapping = RalphYAML.mapping(text) else { return .failure(UserDefaultsProblem(path: path, reason: "is not a YAML mapping")) }
        return .success(mapping)
    }

    /// Why the user's defaults are not used.
    public struct UserDefaultsProblem: Error, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path) \(reason)" }
    }
}
