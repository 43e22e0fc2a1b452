import Foundation

/// The few config values the read path needs, from the workspace's `ralph.yml` (ralph's default config file).
public struct WorkspaceConfig: Sendable, Equatable {
    /// `event_loop.max_iterations` (or the legacy top-level `max_iterations`).
    public var maxIterations: Int?
    /// `RObot.timeout_seconds`: how long ralph waits for a `human.response`.
    public var robotTimeoutSeconds: Int?
    /// The file it came from.
    public var path: String?
    /// `RObot.enabled` with `RObot.mode: web` (ralph ≥ 2.10): questions are answered through `.ralph/api/`, and a
    /// `human.response` line in the events file would never reach ralph.
    public var robotWebMode = false

    public init(maxIterations: Int? = nil, robotTimeoutSeconds: Int? = nil, path: String? = nil, robotWebMode: Bool = false) {
        self.maxIterations = maxIterations
        self.robotTimeoutSeconds = robotTimeoutSeconds
        self.path = path
        self.robotWebMode = robotWebMode
    }

    /// Parses YAML text, over the user's defaults (`~/.ralph/config.yml`, see `WorkspaceConfig+UserDefaults.swift`)
    /// when given; nil if it is not a YAML mapping.
    public static func parse(yaml: String, path: String?, defaults: [String: Any]? = nil) -> WorkspaceConfig? {
        guard let mapping = RalphYAML.mapping(yaml) else { return nil }
        return parse(mapping: defaults.map { merge($0, mapping) } ?? mapping, path: path)
    }

    /// The values of a config mapping.
    public static func parse(mapping root: [String: Any], path: String?) -> WorkspaceConfig {
        var config = WorkspaceConfig(path: path)
        if let loop = root["event_loop"] as? [String: Any] {
            config.maxIterations = loop["max_iterations"] as? Int
        }
        if config.maxIterations == nil { config.maxIterations = root["max_iterations"] as? Int }
        if let robot = (root["RObot"] ?? root["robot"]) as? [String: Any] {
            config.robotTimeoutSeconds = robot["timeout_seconds"] as? Int
            config.robotWebMode = robot["enabled"] as? Bool == true && robot["mode"] as? String == "web"
        }
        return config
    }

    /// The config file of a workspace under `root`, if any (`ralph.yml`, then `ralph.yaml`): a regular file reached
    /// inside the root (a link out of it does not count).
    public static func file(in workspace: String, root: RootDirectory) -> String? {
        for file in RalphLayout(workspace: workspace).configFiles where (try? root.status(file))?.isRegularFile == true {
            return file
        }
        return nil
    }

    /// The config of a workspace under `root`, read through one descriptor: the parsed values (nil when the file is
    /// not a YAML mapping) and the file's status; nil when there is no config file (or it leads out of the root).
    /// Throws when the file is there but cannot be read (too large, unreadable).
    public static func load(
        in workspace: String, root: RootDirectory, defaults: [String: Any]? = nil
    ) throws(ConfinementError) -> (config: WorkspaceConfig?, status: FileSystem.Status)? {
        guard let file = file(in: workspace, root: root), let content = try root.readFile(file, limit: 1 << 20) else { return nil }
        return (parse(yaml: content.text, path: file, defaults: defaults), content.status)
    }

    /// The config file of a workspace, if any (`ralph.yml`, then `ralph.yaml`), by name (links followed anywhere).
    /// Prefer ``file(in:root:)`` and ``load(in:root:)``, which stay inside the root.
    public static func file(in workspace: String) -> String? {
        for file in RalphLayout(workspace: workspace).configFiles where FileSystem.status(file)?.isRegularFile == true {
            return file
        }
        return nil
    }
}
