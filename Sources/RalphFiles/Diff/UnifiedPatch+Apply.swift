extension UnifiedPatch.File {
    /// The file after its hunks are applied to `before`, the file as it is now.
    ///
    /// Each hunk is looked for where its header says, shifted by how far the hunks before it moved, and failing that at
    /// the nearest place after the previous hunk where its context and removed lines are (byte for byte, then ignoring
    /// trailing whitespace). Context lines are kept as the file has them. A hunk whose lines are nowhere is refused,
    /// never applied half.
    public func apply(to before: TextLines) throws(DiffError) -> TextLines {
        var result: [String] = []
        var cursor = 0
        var shift = 0
        var endsWithNewline = before.endsWithNewline
        for (number, hunk) in hunks.enumerated() {
            let old = hunk.oldLines
            let expected = (hunk.oldCount == 0 ? hunk.oldStart : hunk.oldStart - 1) + shift
            let found: Int?
            if old.isEmpty {
                found = min(max(expected, cursor), before.lines.count)
            } else {
                found = LineSearch.nearest(old, in: before.lines, expected: expected, lower: cursor, tolerances: [.exact, .trailingSpace])
            }
            guard let start = found else { throw .hunkNotFound(hunk: number + 1, detail: Self.notFound(hunk)) }
            shift = start - (hunk.oldCount == 0 ? hunk.oldStart : hunk.oldStart - 1)
            result += before.lines[cursor..<start]
            var line = start
            for hunkLine in hunk.lines {
                switch hunkLine.kind {
                case .context:
                    result.append(before.lines[line])
                    line += 1
                case .removed: line += 1
                case .added: result.append(hunkLine.text)
                }
            }
            cursor = start + old.count
            if cursor == before.lines.count {
                endsWithNewline = !(hunk.lines.last { $0.kind != .removed }?.missingNewline ?? false)
            }
        }
        if cursor < before.lines.count {
            result += before.lines[cursor...]
            endsWithNewline = before.endsWithNewline
        }
        return TextLines(lines: result, endsWithNewline: endsWithNewline)
    }

    /// Says which lines of `hunk` were looked for.
    private static func notFound(_ hunk: UnifiedPatch.Hunk) -> String {
        let header = "@@ -\(hunk.oldStart),\(hunk.oldCount) +\(hunk.newStart),\(hunk.newCount) @@"
        let first = hunk.oldLines.first ?? ""
        let shown = first.count > 60 ? String(first.prefix(60)) + "…" : first
        return "\(header) expects \(hunk.oldLines.count) line(s) starting '\(shown)', which are not in the file"
    }
}
