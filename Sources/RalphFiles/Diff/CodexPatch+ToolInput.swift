import RalphAPI

extension CodexPatch {
    /// The names Codex gives its patch tool and command.
    static let commandNames: Set<String> = ["apply_patch", "applypatch"]

    /// The patch a Codex tool call carries: the `apply_patch` tool's input (the patch itself, or an object holding it),
    /// or a shell `command` that runs `apply_patch` (`["apply_patch", patch]`, or a `bash -lc` script starting with
    /// `apply_patch <<'EOF'`). Nil for anything else: a command that changes directory first is not read, since its
    /// paths would be relative to another directory.
    public static func patchText(tool name: String, input: JSONValue) -> String? {
        if commandNames.contains(name.lowercased()) {
            return strings(in: input).lazy.compactMap { extract(from: $0) }.first
        }
        guard let command = input.objectValue?["command"] else { return nil }
        let parts = command.arrayValue?.compactMap(\.stringValue) ?? command.stringValue.map { [$0] } ?? []
        guard let first = parts.first else { return nil }
        if commandNames.contains(first), parts.count >= 2 { return extract(from: parts[1]) }
        guard let script = parts.last, let word = script.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "<" }).first,
            commandNames.contains(String(word))
        else { return nil }
        return extract(from: script)
    }

    /// Every string in a JSON value, depth first.
    private static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let values): values.flatMap { strings(in: $0) }
        case .object(let object): object.members.flatMap { strings(in: $0.value) }
        default: []
        }
    }
}
