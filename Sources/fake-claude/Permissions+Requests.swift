import Foundation
import RalphAPI

/// What the CLI decides from a call alone (reads run unasked), and what its `can_use_tool` requests carry.
extension Permissions {
    /// The tools that only read files, which run unasked inside the working directories.
    static let readTools: Set<String> = ["Read", "Glob", "Grep"]
    /// Bash commands that only read; with no redirection, pipe or chaining and no absolute path outside the working
    /// directories, they run unasked (the real CLI classifies many more).
    static let readOnlyCommands: Set<String> = ["ls", "cat", "head", "tail", "wc", "pwd", "echo", "grep", "file", "stat", "du", "which", "date"]
    static let readOnlyGitCommands: Set<String> = ["status", "log", "diff", "show", "branch"]

    static let outsideReason = "Path is outside allowed working directories"

    /// What a rule's content is matched against: the command of a Bash call, the path of a file or read tool's call.
    static func subject(tool: String, input: JSONValue) -> String? {
        let object = input.objectValue
        if tool == "Bash" { return object?["command"]?.stringValue }
        return (object?["file_path"] ?? object?["notebook_path"] ?? object?["path"])?.stringValue
    }

    /// Whether `path` (relative to the working directory, or absolute) lies in it or in a directory added to it.
    func isInside(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return true }
        return ([cwd] + additionalDirectories).contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// A path as the CLI shows it: relative to the working directory when inside it, else as given.
    func shown(_ path: String) -> String {
        path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
    }

    /// Whether the call only reads inside the working directories, which the CLI runs unasked in every mode.
    func isReadOnly(tool: String, input: JSONValue) -> Bool {
        if Self.readTools.contains(tool) { return Self.subject(tool: tool, input: input).map(isInside) ?? true }
        guard tool == "Bash", let command = Self.subject(tool: tool, input: input) else { return false }
        guard !["<", ">", "|", ";", "&", "`", "$("].contains(where: command.contains) else { return false }
        let words = command.split(separator: " ").map(String.init)
        guard let first = words.first else { return false }
        let reads = Self.readOnlyCommands.contains(first) || (first == "git" && words.count > 1 && Self.readOnlyGitCommands.contains(words[1]))
        return reads && words.allSatisfy { !$0.hasPrefix("/") || isInside($0) }
    }

    /// The fields of a `can_use_tool` request between `input` and `tool_use_id`, as the real CLI makes them:
    /// `description` (the input's, or the path for file and read tools), `permission_suggestions`, and `blocked_path`
    /// (Bash) or `decision_reason` (a path outside the working directories).
    func requestFields(tool: String, input: JSONValue) -> [(String, JSONValue)] {
        let acceptEdits: JSONValue = ["type": "setMode", "mode": "acceptEdits", "destination": "session"]
        let path = Self.subject(tool: tool, input: input)
        var fields: [(String, JSONValue)] = []
        if tool == "Bash" {
            let command = path ?? ""
            if let description = input.objectValue?["description"]?.stringValue { fields.append(("description", .string(description))) }
            fields.append((
                "permission_suggestions",
                [
                    [
                        "type": "addRules", "rules": [["toolName": "Bash", "ruleContent": .string(command + " *")]], "behavior": "allow",
                        "destination": "localSettings",
                    ],
                    ["type": "addDirectories", "directories": [.string(cwd)], "destination": "session"],
                    acceptEdits,
                ]
            ))
            if let word = command.split(separator: " ").last.map(String.init) {
                fields.append(("blocked_path", .string(word.hasPrefix("/") ? word : cwd + "/" + word)))
            }
            return fields
        }
        guard Self.fileTools.contains(tool) || Self.readTools.contains(tool), let path else {
            if let description = input.objectValue?["description"]?.stringValue { fields.append(("description", .string(description))) }
            fields.append(("permission_suggestions", []))
            return fields
        }
        fields.append(("description", .string(shown(path))))
        let directory = (path as NSString).deletingLastPathComponent
        switch (Self.fileTools.contains(tool), isInside(path)) {
        case (true, true):
            fields.append(("permission_suggestions", [acceptEdits]))
        case (true, false):
            fields.append(("permission_suggestions", [acceptEdits, ["type": "addDirectories", "directories": [.string(directory)], "destination": "session"]]))
        case (false, _):
            let rule: JSONValue = ["toolName": .string(tool), "ruleContent": .string("/" + directory + "/**")]
            fields.append(("permission_suggestions", [["type": "addRules", "rules": [rule], "behavior": "allow", "destination": "session"]]))
        }
        if !isInside(path) {
            fields.append(("decision_reason", .string(Self.outsideReason)))
            fields.append(("decision_reason_type", "workingDir"))
        }
        return fields
    }
}
