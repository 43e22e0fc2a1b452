/// The patches `write` and `edit` send to Codex's freeform `apply_patch` tool, in its own format:
///
///     *** Begin Patch
///     *** Add File: notes.txt
///     +first line
///     +second line
///     *** End Patch
///
/// Codex resolves a relative path against the turn's working directory. Its patches work on whole lines: an added
/// file always ends with a newline, and an update replaces the lines of `old` by the lines of `new` where they occur
/// together as whole lines (unlike Claude's Edit, which replaces any substring).
enum Patch {
    /// A patch that creates `path` holding `content` (a file that exists already is replaced).
    static func add(path: String, content: String) -> String {
        let body = lines(content).map { "+" + $0 + "\n" }.joined()
        return "*** Begin Patch\n*** Add File: \(path)\n" + (body.isEmpty ? "+\n" : body) + "*** End Patch\n"
    }

    /// A patch that replaces the lines of `old` by those of `new` in `path`.
    static func update(path: String, old: String, new: String) -> String {
        let removed = lines(old).map { "-" + $0 + "\n" }.joined()
        let added = lines(new).map { "+" + $0 + "\n" }.joined()
        return "*** Begin Patch\n*** Update File: \(path)\n@@\n" + removed + added + "*** End Patch\n"
    }

    /// The lines of `text`; a final newline ends the last line rather than starting an empty one.
    private static func lines(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") { lines.removeLast() }
        return lines
    }
}
