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
    /// Each hat's `publishes` (the topics it may emit), by hat id and by its display `name`.
    public var hatPublishes: [String: [String]] = [:]

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
        if let hats = root["hats"] as? [String: Any] {
            for (id, value) in hats {
                guard let hat = value as? [String: Any], let publishes = hat["publishes"] as? [String] else { continue }
                config.hatPublishes[id] = publishes
                if let name = hat["name"] as? String, !name.isEmpty, config.hatPublishes[name] == nil { config.hatPublishes[name] = publishes }
            }
        }
        return config
    }

    /// The config a run was started with (`ralph run -c <file>`), over the user's defaults file (`userConfigFile`,
    /// as the catalog reads it) when there is one; nil when the file cannot be read or is not a YAML mapping. For a
    /// file the caller already confined to the roots.
    public static func load(startedWith file: String, userConfigFile: String?) -> WorkspaceConfig? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        let defaults: [String: Any]?
        if let path = userConfigFile, case .success(let mapping) = loadUserDefaults(path) { defaults = mapping } else { defaults = nil }
        return parse(yaml: text, path: file, defaults: defaults)
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
