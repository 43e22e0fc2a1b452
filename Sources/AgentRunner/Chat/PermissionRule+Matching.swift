import Foundation
import RalphAPI

extension PermissionRule {
    /// The input field that names what a call of each known tool acts on. A rule for these tools covers the calls with
    /// the same value there (the same command, the same file, the same URL); for any other tool, only the same input.
    static let keyFields: [String: String] = [
        "Bash": "command", "Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "Read": "file_path",
        "NotebookEdit": "notebook_path", "WebFetch": "url", "WebSearch": "query",
        // Codex: a command, and a patch's set of files (as Codex's own "for the session" covers the same files).
        CodexTool.shell: "command", CodexTool.applyPatch: "paths",
    ]

    /// The narrowest rule covering a call of `toolName` with `input`: what "allow for this session" grants for it.
    ///
    /// `Bash` (and Codex's `shell`) with the exact command (never a prefix: `git status` does not cover
    /// `git status; rm -rf ~`); file tools with the exact file, Codex's `apply_patch` with the exact set of files (shown
    /// relative to `cwd` when inside it); other known tools with their key field; any other tool with its exact input.
    public static func narrowest(toolName: String, input: JSONValue, cwd: String) -> PermissionRule {
        if let field = keyFields[toolName], case .string(let text)? = input.objectValue?[field], !text.isEmpty {
            let shown = field.hasSuffix("_path") ? relative(text, to: cwd) : text
            return PermissionRule(toolName: toolName, field: field, value: .string(text), display: "\(toolName)(\(shown))")
        }
        if let field = keyFields[toolName], case .array(let items)? = input.objectValue?[field], !items.isEmpty {
            let paths = items.compactMap(\.stringValue)
            if paths.count == items.count {
                let shown = paths.map { relative($0, to: cwd) }.joined(separator: ", ")
                return PermissionRule(toolName: toolName, field: field, value: .array(items), display: "\(toolName)(\(shown))")
            }
        }
        return PermissionRule(toolName: toolName, field: nil, value: canonical(input), display: "\(toolName) (this exact input)")
    }

    /// Whether a call of `toolName` with `input` is one this rule covers.
    public func matches(toolName: String, input: JSONValue) -> Bool {
        guard toolName == self.toolName else { return false }
        if let field {
            return input.objectValue?[field] == value
        }
        return Self.canonical(input) == Self.canonical(value)
    }

    /// `path` relative to `directory` when it lies inside it.
    static func relative(_ path: String, to directory: String) -> String {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return path.hasPrefix(base) && path.count > base.count ? String(path.dropFirst(base.count)) : path
    }

    /// The value with every object's keys sorted, so two inputs compare equal whatever order their keys came in.
    static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(JSONObject(object.members.map { ($0.key, canonical($0.value)) }.sorted { $0.0 < $1.0 }.map { (key: $0.0, value: $0.1) }))
        case .array(let items):
            return .array(items.map(canonical))
        default:
            return value
        }
    }
}
