import Foundation
import RalphAPI

/// An allow or deny rule as settings files and `--allowedTools` write it: `Bash`, `Bash(git log *)`, `Bash(npm test:*)`.
struct PermissionRule: Equatable, Sendable {
    let toolName: String
    let content: String?

    init(toolName: String, content: String?) {
        self.toolName = toolName
        self.content = content.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses `Tool` or `Tool(content)`.
    init(parsing text: String) {
        if let open = text.firstIndex(of: "("), text.hasSuffix(")") {
            self.init(toolName: String(text[..<open]), content: String(text[text.index(after: open)..<text.index(before: text.endIndex)]))
        } else {
            self.init(toolName: text, content: nil)
        }
    }

    /// `Tool` or `Tool(content)`.
    var text: String { content.map { "\(toolName)(\($0))" } ?? toolName }

    /// Whether a call of `tool` with `input` falls under the rule. Without content: every call of the tool. With
    /// content, the call's subject (a Bash command, a file tool's path) must match it: `x y *` and `x y:*` match `x y`
    /// and anything starting with `x y `, `//dir/**` matches paths under `/dir`, `*` matches anything, any other content
    /// must be equal.
    func matches(tool: String, input: JSONValue) -> Bool {
        guard tool == toolName else { return false }
        guard let content else { return true }
        guard let subject = Permissions.subject(tool: tool, input: input) else { return false }
        if content == "*" { return true }
        if content.hasPrefix("//") && content.hasSuffix("/**") {
            let directory = String(content.dropFirst().dropLast(3))
            return subject == directory || subject.hasPrefix(directory + "/")
        }
        for wildcard in [" *", ":*"] where content.hasSuffix(wildcard) {
            let prefix = String(content.dropLast(wildcard.count))
            return subject == prefix || subject.hasPrefix(prefix + " ")
        }
        return subject == content
    }
}

/// The permission state of one process: allow and deny rules (flags, `<cwd>/.claude/settings.local.json`, and the
/// updates sent with allows) and the directories added for the session.
struct Permissions {
    /// The tools that change files, which `acceptEdits` runs without asking.
    static let fileTools: Set<String> = ["Write", "Edit", "MultiEdit", "NotebookEdit"]

    var allow: [PermissionRule]
    var deny: [PermissionRule]
    var additionalDirectories: [String] = []
    let cwd: String
    let settingsPath: String

    /// The flags' rules, then those of `<cwd>/.claude/settings.local.json` (read once, at startup, like the CLI).
    init(options: Options, cwd: String) {
        self.cwd = cwd
        settingsPath = cwd + "/.claude/settings.local.json"
        allow = options.allowedTools.map(PermissionRule.init(parsing:))
        deny = options.disallowedTools.map(PermissionRule.init(parsing:))
        let permissions = Self.readSettings(settingsPath)["permissions"]?.objectValue
        func rules(_ key: String) -> [PermissionRule] {
            guard case .array(let list)? = permissions?[key] else { return [] }
            return list.compactMap(\.stringValue).map(PermissionRule.init(parsing:))
        }
        allow += rules("allow")
        deny += rules("deny")
    }

    /// Whether a deny rule names the whole tool: then, as for the CLI, the tool does not exist in this session.
    func isUnavailable(_ tool: String) -> Bool {
        deny.contains { $0.toolName == tool && $0.content == nil }
    }

    // MARK: Updates sent with an allow

    /// Applies the `updatedPermissions` of an allow like the CLI: `addRules` with behavior `allow` add rules
    /// (`localSettings` ones are also saved to `<cwd>/.claude/settings.local.json`), `addDirectories` are recorded.
    /// Returns the mode of a `setMode` update, for the caller to switch to.
    mutating func apply(_ updates: JSONValue?) -> String? {
        guard case .array(let list)? = updates else { return nil }
        var mode: String?
        for update in list.compactMap(\.objectValue) {
            switch update["type"]?.stringValue {
            case "addRules" where update["behavior"]?.stringValue == "allow":
                guard case .array(let rules)? = update["rules"] else { continue }
                for rule in rules.compactMap(\.objectValue) {
                    guard let tool = rule["toolName"]?.stringValue else { continue }
                    let added = PermissionRule(toolName: tool, content: rule["ruleContent"]?.stringValue)
                    if !allow.contains(added) { allow.append(added) }
                    if update["destination"]?.stringValue == "localSettings" { saveLocalAllow(added) }
                }
            case "addDirectories":
                guard case .array(let directories)? = update["directories"] else { continue }
                for directory in directories.compactMap(\.stringValue) where !additionalDirectories.contains(directory) {
                    additionalDirectories.append(directory)
                }
            case "setMode":
                mode = update["mode"]?.stringValue ?? mode
            default:
                continue
            }
        }
        return mode
    }

    /// Adds `rule` to `permissions.allow` of the local settings file, keeping everything else in it.
    private func saveLocalAllow(_ rule: PermissionRule) {
        var settings = Self.readSettings(settingsPath)
        var permissions = settings["permissions"]?.objectValue ?? JSONObject()
        var allowed: [JSONValue] = []
        if case .array(let list)? = permissions["allow"] { allowed = list }
        guard !allowed.contains(.string(rule.text)) else { return }
        allowed.append(.string(rule.text))
        permissions["allow"] = .array(allowed)
        settings["permissions"] = .object(permissions)
        try? FileManager.default.createDirectory(atPath: (settingsPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? Data((PrettyJSON.string(.object(settings)) + "\n").utf8).write(to: URL(fileURLWithPath: settingsPath))
    }

    private static func readSettings(_ path: String) -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path), let value = try? JSONParser.parse(Array(data)) else { return JSONObject() }
        return value.objectValue ?? JSONObject()
    }
}

/// JSON indented by two spaces, as `JSON.stringify(value, null, 2)` writes it (the CLI's settings files).
enum PrettyJSON {
    static func string(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + string($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let object) where !object.isEmpty:
            let members = object.members.map { inner + JSONWriter.string(.string($0.key)) + ": " + string($0.value, indent: inner) }
            return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return JSONWriter.string(value)
        }
    }
}
