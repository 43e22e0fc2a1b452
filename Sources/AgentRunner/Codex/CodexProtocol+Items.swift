import RalphAPI

/// The names Codex's tool calls take in a conversation (and in its session rules).
public enum CodexTool {
    /// A shell command (`commandExecution`): input `{command, cwd}`, the command as the model wrote it.
    public static let shell = "shell"
    /// A patch (`fileChange`): input `{paths, changes: [{path, kind, diff}]}`, paths absolute. `diff` is a hunk for an
    /// update and the whole new text for an added file.
    public static let applyPatch = "apply_patch"
}

extension CodexProtocol {
    /// `item/started`: an agent message opens; a tool call is announced (and its input kept for its approval).
    mutating func itemStarted(_ item: JSONObject) -> Step {
        guard let id = item["id"]?.stringValue else { return Step() }
        switch item["type"]?.stringValue {
        case "agentMessage":
            // Codex starts a message again from its beginning after a retried model request.
            let replay = retrying ? message.map { Substring($0.shown) } : nil
            message = OpenMessage(itemID: id, shown: replay.map(String.init) ?? "", replaying: replay.flatMap { $0.isEmpty ? nil : $0 })
            retrying = false
            return Step()
        default:
            guard let (name, input) = Self.tool(item) else { return Step() }
            toolInputs[id] = input
            return Step(events: [.toolUse(messageID: nil, toolUseID: id, name: name, input: input, parentToolUseID: nil)])
        }
    }

    /// `item/completed`: the message's whole text, or a tool call's result.
    mutating func itemCompleted(_ item: JSONObject) -> Step {
        guard let id = item["id"]?.stringValue else { return Step() }
        switch item["type"]?.stringValue {
        case "agentMessage":
            if message?.itemID == id { message = nil }
            return Step(events: [.assistantText(messageID: id, text: item["text"]?.stringValue ?? "", parentToolUseID: nil)])
        default:
            guard toolInputs[id] != nil || Self.tool(item) != nil else { return Step() }
            toolInputs[id] = nil
            let status = item["status"]?.stringValue ?? "completed"
            let result = AgentToolResult(toolUseID: id, output: Self.output(of: item, status: status), isError: status != "completed")
            return Step(events: [.toolResults([result], parentToolUseID: nil)])
        }
    }

    /// The name and input a tool item is shown with; nil for items that are not tool calls.
    static func tool(_ item: JSONObject) -> (String, JSONValue)? {
        switch item["type"]?.stringValue {
        case "commandExecution":
            return (CodexTool.shell, commandInput(item))
        case "fileChange":
            let changes = item["changes"]?.arrayValue ?? []
            let paths = changes.compactMap { $0.objectValue?["path"]?.stringValue }
            let shown: [JSONValue] = changes.compactMap { change in
                guard let change = change.objectValue, let path = change["path"]?.stringValue else { return nil }
                let kind = change["kind"]?.objectValue
                var entry = JSONObject([("path", .string(path)), ("kind", .string(kind?["type"]?.stringValue ?? "update"))])
                if let move = kind?["move_path"]?.stringValue { entry["move_path"] = .string(move) }
                entry["diff"] = .string(change["diff"]?.stringValue ?? "")
                return .object(entry)
            }
            return (CodexTool.applyPatch, ["paths": .array(paths.map(JSONValue.string)), "changes": .array(shown)])
        case "mcpToolCall":
            let name = "mcp__\(item["server"]?.stringValue ?? "server")__\(item["tool"]?.stringValue ?? "tool")"
            return (name, item["arguments"] ?? [:])
        case "dynamicToolCall":
            return (item["tool"]?.stringValue ?? "tool", item["arguments"] ?? [:])
        case "webSearch":
            return ("web_search", ["query": item["query"] ?? ""])
        case "imageView":
            return ("view_image", ["path": item["path"] ?? ""])
        default:
            return nil
        }
    }

    /// `{command, cwd}` of a command item or approval request, the command unwrapped from Codex's `bash -lc '…'`.
    static func commandInput(_ object: JSONObject) -> JSONValue {
        let command = object["command"]?.stringValue ?? ""
        var input = JSONObject([("command", .string(unwrapShell(command)))])
        if let cwd = object["cwd"]?.stringValue { input["cwd"] = .string(cwd) }
        return .object(input)
    }

    /// What a finished tool call reports: a command's output (and a non-zero exit), a patch's files, or why it did not
    /// run.
    static func output(of item: JSONObject, status: String) -> String {
        if status == "declined" { return "declined: the call did not run" }
        switch item["type"]?.stringValue {
        case "commandExecution":
            var text = item["aggregatedOutput"]?.stringValue ?? ""
            if let code = item["exitCode"]?.intValue, code != 0 { text += (text.isEmpty || text.hasSuffix("\n") ? "" : "\n") + "(exit code \(code))" }
            return text
        case "fileChange":
            let changes = (item["changes"]?.arrayValue ?? []).compactMap { change -> String? in
                guard let change = change.objectValue, let path = change["path"]?.stringValue else { return nil }
                return "\(change["kind"]?.objectValue?["type"]?.stringValue ?? "update") \(path)"
            }
            return (status == "completed" ? "applied: " : "\(status): ") + changes.joined(separator: ", ")
        case "mcpToolCall":
            if let error = item["error"], !error.isNull { return JSONWriter.string(error) }
            return item["result"].map(JSONWriter.string) ?? ""
        default:
            return status
        }
    }

    /// The command inside `/bin/bash -lc '<command>'` (how Codex runs what the model wrote), or `command` itself when it
    /// is not that shape.
    static func unwrapShell(_ command: String) -> String {
        for shell in ["/bin/bash -lc ", "/bin/bash -c ", "bash -lc ", "bash -c ", "/bin/zsh -lc ", "/bin/sh -c ", "sh -c "] where command.hasPrefix(shell) {
            if let word = singleShellWord(command.dropFirst(shell.count)) { return word }
        }
        return command
    }

    /// The text of one shell word made of single-quoted parts and `\'` (what Codex's quoting produces), or nil.
    static func singleShellWord(_ text: Substring) -> String? {
        var result = ""
        var rest = text
        while let first = rest.first {
            if first == "'" {
                guard let close = rest.dropFirst().firstIndex(of: "'") else { return nil }
                result += rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
            } else if rest.hasPrefix("\\'") {
                result += "'"
                rest = rest.dropFirst(2)
            } else {
                return nil
            }
        }
        return result.isEmpty && !text.isEmpty ? nil : result
    }
}
