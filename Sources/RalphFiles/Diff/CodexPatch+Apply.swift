extension CodexPatch {
    /// The file after an update's `chunks` are applied to `before`, the file as it is now, as Codex applies them.
    ///
    /// In order, each chunk's `@@` line (when it has one) is found first, then its context and removed lines after it
    /// (and after the previous chunk): byte for byte, then ignoring trailing whitespace, then ignoring surrounding
    /// whitespace; a chunk marked `*** End of File` is tried at the end of the file first. A chunk that only adds lines
    /// adds them at the end of the file, as Codex does. Like Codex, the result always ends with a newline. A chunk whose
    /// lines are nowhere is refused.
    public static func apply(_ chunks: [Chunk], to before: String) throws(DiffError) -> String {
        let lines = TextLines(before).lines
        var replacements: [(start: Int, count: Int, lines: [String])] = []
        var cursor = 0
        let tolerances = LineSearch.Tolerance.allCases
        for (number, chunk) in chunks.enumerated() {
            if let context = chunk.context {
                guard let found = LineSearch.first([context], in: lines, from: cursor, tolerances: tolerances) else {
                    throw .hunkNotFound(hunk: number + 1, detail: "its @@ line '\(shown(context))' is not in the file")
                }
                cursor = found + 1
            }
            if chunk.oldLines.isEmpty {
                replacements.append((lines.count, 0, chunk.newLines))
                continue
            }
            var old = chunk.oldLines
            var new = chunk.newLines
            var found = LineSearch.first(old, in: lines, from: cursor, atEnd: chunk.isEndOfFile, tolerances: tolerances)
            if found == nil, old.last == "" {
                // An empty last line stands for the file's final newline: look again without it.
                old.removeLast()
                if new.last == "" { new.removeLast() }
                found = LineSearch.first(old, in: lines, from: cursor, atEnd: chunk.isEndOfFile, tolerances: tolerances)
            }
            guard let start = found else {
                let first = chunk.oldLines.first { !$0.isEmpty } ?? ""
                throw .hunkNotFound(hunk: number + 1, detail: "its \(chunk.oldLines.count) expected line(s) ('\(shown(first))' …) are not in the file")
            }
            replacements.append((start, old.count, new))
            cursor = start + old.count
        }
        var result = lines
        for replacement in replacements.sorted(by: { $0.start < $1.start }).reversed() {
            result.replaceSubrange(replacement.start..<(replacement.start + replacement.count), with: replacement.lines)
        }
        return result.isEmpty ? "" : result.joined(separator: "\n") + "\n"
    }

    private static func shown(_ line: String) -> String { line.count > 60 ? String(line.prefix(60)) + "…" : line }
}
