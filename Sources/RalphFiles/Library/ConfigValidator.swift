import Foundation

/// Checks a ralph config (`ralph.yml`) the way ralph checks it when it loads one, so an import is refused when ralph
/// would refuse to run with it: a YAML mapping; known fields with the right types; every hat with a `name` and a
/// non-empty `description`; no hat triggered by `task.start`/`task.resume` (reserved); no trigger shared by two hats
/// (ambiguous routing); `event_loop.prompt` and a custom `prompt_file` not both; a non-empty completion promise; a
/// `custom` backend with a command; `RObot.enabled` with a timeout. Unknown keys are allowed, as ralph ignores them;
/// `_suppress_warnings: true` skips the checks, as it does in ralph.
public enum RalphConfigValidator {
    /// What is wrong with `yaml`, empty when ralph would accept it.
    public static func problems(in yaml: String) -> [String] {
        let loaded: Any?
        do {
            loaded = try RalphYAML.load(yaml)
        } catch {
            return ["not valid YAML: \(error)"]
        }
        guard let root = loaded as? [String: Any] else { return ["a ralph config is a YAML mapping (key: value), not \(describe(loaded))"] }
        if root["_suppress_warnings"] as? Bool == true { return [] }
        var problems: [String] = []
        if root["project"] != nil { problems.append("'project' is no longer a ralph config key") }

        let loop = section(root, "event_loop", &problems)
        check(loop, ["prompt", "prompt_file", "completion_promise", "starting_event", "starting_hat"], as: String.self, in: "event_loop", &problems)
        check(loop, ["max_iterations", "max_runtime_seconds", "max_consecutive_failures", "cooldown_delay_seconds", "checkpoint_interval"], as: Int.self, in: "event_loop", &problems)
        check(loop, ["persistent"], as: Bool.self, in: "event_loop", &problems)
        if let cost = loop["max_cost_usd"], !(cost is Int || cost is Double) { problems.append("event_loop.max_cost_usd must be a number") }
        if let n = loop["max_iterations"] as? Int, n < 1 { problems.append("event_loop.max_iterations must be at least 1") }
        if loop["prompt"] is String, let file = loop["prompt_file"] as? String, !file.isEmpty, file != "PROMPT.md" {
            problems.append("event_loop.prompt and event_loop.prompt_file cannot both be set")
        }
        let promise = (loop["completion_promise"] as? String) ?? (root["completion_promise"] as? String) ?? "LOOP_COMPLETE"
        if promise.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("event_loop.completion_promise cannot be empty") }
        check(root, ["max_iterations"], as: Int.self, in: nil, &problems)

        let cli = section(root, "cli", &problems)
        check(cli, ["backend", "command", "prompt_mode", "default_mode", "prompt_flag"], as: String.self, in: "cli", &problems)
        if cli["backend"] as? String == "custom", ((cli["command"] as? String) ?? "").isEmpty {
            problems.append("cli.backend 'custom' needs cli.command")
        }
        if let args = cli["args"], !(args is [String]) { problems.append("cli.args must be a list of strings") }

        let robot = section(root, "RObot", &problems)
        if robot["enabled"] as? Bool == true, robot["timeout_seconds"] == nil { problems.append("RObot.enabled needs RObot.timeout_seconds") }
        check(robot, ["timeout_seconds", "checkin_interval_seconds"], as: Int.self, in: "RObot", &problems)

        problems += hatProblems(root)
        return problems
    }

    static func hatProblems(_ root: [String: Any]) -> [String] {
        guard let raw = root["hats"] else { return [] }
        guard let hats = raw as? [String: Any] else { return ["hats must be a mapping of hat id to hat"] }
        var problems: [String] = []
        var triggeredBy: [String: String] = [:]
        for id in hats.keys.sorted() {
            guard let hat = hats[id] as? [String: Any] else {
                problems.append("hats.\(id) must be a mapping")
                continue
            }
            if !(hat["name"] is String) { problems.append("hats.\(id).name is required (a string)") }
            if ((hat["description"] as? String) ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problems.append("hats.\(id).description is required")
            }
            for key in ["triggers", "publishes", "extra_instructions"] where hat[key] != nil && !(hat[key] is [String]) {
                problems.append("hats.\(id).\(key) must be a list of strings")
            }
            check(hat, ["instructions", "default_publishes"], as: String.self, in: "hats.\(id)", &problems)
            check(hat, ["max_activations"], as: Int.self, in: "hats.\(id)", &problems)
            for trigger in (hat["triggers"] as? [String]) ?? [] {
                if trigger == "task.start" || trigger == "task.resume" {
                    problems.append("hats.\(id) cannot be triggered by '\(trigger)' (reserved for the loop)")
                } else if let other = triggeredBy[trigger] {
                    problems.append("'\(trigger)' triggers both hats.\(other) and hats.\(id) (ambiguous routing)")
                } else {
                    triggeredBy[trigger] = id
                }
            }
        }
        return problems
    }

    static func section(_ root: [String: Any], _ key: String, _ problems: inout [String]) -> [String: Any] {
        guard let value = root[key] else { return [:] }
        guard let mapping = value as? [String: Any] else {
            problems.append("\(key) must be a mapping")
            return [:]
        }
        return mapping
    }

    static func check<T>(_ mapping: [String: Any], _ keys: [String], as type: T.Type, in section: String?, _ problems: inout [String]) {
        for key in keys {
            guard let value = mapping[key], !(value is T) else { continue }
            problems.append("\(section.map { $0 + "." } ?? "")\(key) must be \(name(of: type)), not \(describe(value))")
        }
    }

    static func name<T>(of type: T.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }

    static func describe(_ value: Any?) -> String {
        switch value {
        case nil: "empty"
        case is String: "a string"
        case is Int, is Double: "a number"
        case is Bool: "true/false"
        case is [Any]: "a list"
        case is [String: Any]: "a mapping"
        default: "\(type(of: value!))"
        }
    }
}
