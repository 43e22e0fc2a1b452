import Foundation
import RalphFiles
import Yams

/// What the config file tells the double: its `fake_ralph:` section (each test's script), RObot's settings and the
/// hats, read once at start.
struct Behaviour {
    /// The `fake_ralph:` section.
    var script: [String: Any] = [:]
    /// The whole config, for sections other parts of the double read (`RObot`, `hooks`, `event_loop` …).
    var config: [String: Any] = [:]
    var robotTimeout = 30.0
    var hats = ["planner", "builder", "reviewer"]

    init(options: Options, cwd: String) {
        guard let file = options.config, !file.hasPrefix("builtin:") else { return }
        let path = file.hasPrefix("/") ? file : cwd + "/" + file
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("Error: Config file not found: \(file)", code: 1) }
        guard let yaml = (try? Yams.load(yaml: text)) as? [String: Any] else { fail("Error: Failed to parse config \(file)", code: 1) }
        // ralph ≥ 2.8 loads the user's defaults (`$HOME/.ralph/config.yml`) under the given config.
        config = Self.userDefaults().map { WorkspaceConfig.merge($0, yaml) } ?? yaml
        script = yaml["fake_ralph"] as? [String: Any] ?? [:]
        if let robot = config["RObot"] as? [String: Any], let t = robot["timeout_seconds"] as? Int { robotTimeout = Double(t) }
        if let configured = yaml["hats"] as? [String: Any], !configured.isEmpty { hats = configured.keys.sorted() }
    }

    /// The user's default config, as ralph reads it: none without the file; a broken one stops the run (exit 1).
    static func userDefaults() -> [String: Any]? {
        guard let path = WorkspaceConfig.userDefaultsFile() else { return nil }
        switch WorkspaceConfig.loadUserDefaults(path) {
        case .success(let mapping): return mapping
        case .failure(let problem): fail("Error: Failed to load config from \(problem)", code: 1)
        }
    }

    func number(_ key: String, _ fallback: Double) -> Double {
        if let value = script[key] as? Double { return value }
        if let value = script[key] as? Int { return Double(value) }
        return fallback
    }

    func string(_ key: String) -> String? { script[key] as? String }
    func bool(_ key: String) -> Bool { script[key] as? Bool ?? false }
    /// A section of the config (`RObot`, `event_loop` …).
    func section(_ name: String) -> [String: Any]? { config[name] as? [String: Any] }
}
