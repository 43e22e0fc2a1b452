import Foundation

/// Reads a unified diff line by line into ``UnifiedDiffText`` (see there for what it understands).
struct UnifiedDiffReader {
    private struct Line {
        var kind: DiffLine.Kind
        var old: Int?
        var new: Int?
        var text: String
        var tokens: [SyntaxToken]
    }

    private struct Hunk {
        var header: String
        var oldStart: Int
        var oldCount: Int
        var newStart: Int
        var newCount: Int
        var section: String?
        var lines: [Line] = []
    }

    let highlighter: SyntaxHighlighter
    private var oldPath: String?
    private var newPath: String?
    private var hunks: [Hunk] = []
    private var other: [String] = []
    /// Lines of the current hunk still to come on each side.
    private var oldLeft = 0
    private var newLeft = 0
    private var nextOld = 0
    private var nextNew = 0
    /// Open comments and strings, carried from line to line on each side.
    private var oldState = SyntaxHighlighter.State.code
    private var newState = SyntaxHighlighter.State.code

    init(highlighter: SyntaxHighlighter) { self.highlighter = highlighter }

    mutating func read(_ line: String) {
        if !hunks.isEmpty, line.hasPrefix("\\") {
            let words = line.dropFirst().trimmingCharacters(in: .whitespaces)
            append(Line(kind: .marker, old: nil, new: nil, text: words, tokens: []))
            return
        }
        // An empty line inside a hunk is an empty context line whose space was lost.
        let first = line.first ?? " "
        if oldLeft > 0 || newLeft > 0, first == " " || first == "+" || first == "-" {
            let text = String(line.dropFirst())
            switch first {
            case "+":
                append(Line(kind: .added, old: nil, new: nextNew, text: text, tokens: highlighter.tokens(text, state: &newState)))
                (nextNew, newLeft) = (nextNew + 1, newLeft - 1)
            case "-":
                append(Line(kind: .removed, old: nextOld, new: nil, text: text, tokens: highlighter.tokens(text, state: &oldState)))
                (nextOld, oldLeft) = (nextOld + 1, oldLeft - 1)
            default:
                let tokens = highlighter.tokens(text, state: &newState)
                oldState = newState
                append(Line(kind: .context, old: nextOld, new: nextNew, text: text, tokens: tokens))
                (nextOld, oldLeft, nextNew, newLeft) = (nextOld + 1, oldLeft - 1, nextNew + 1, newLeft - 1)
            }
            return
        }
        if let hunk = Self.hunk(line) {
            hunks.append(hunk)
            (oldLeft, newLeft) = (hunk.oldCount, hunk.newCount)
            // A hunk of no lines on a side starts after line `start` (`-0,0` for an added file).
            (nextOld, nextNew) = (hunk.oldCount == 0 ? hunk.oldStart + 1 : hunk.oldStart, hunk.newCount == 0 ? hunk.newStart + 1 : hunk.newStart)
            (oldState, newState) = (.code, .code)
        } else if hunks.isEmpty, line.hasPrefix("--- ") {
            oldPath = Self.path(line.dropFirst(4), prefix: "a/")
        } else if hunks.isEmpty, line.hasPrefix("+++ ") {
            newPath = Self.path(line.dropFirst(4), prefix: "b/")
        } else {
            other.append(line)
        }
    }

    func finish() -> UnifiedDiffText {
        let widest = hunks.flatMap(\.lines).flatMap { [$0.old, $0.new] }.compactMap { $0 }.max() ?? 0
        let width = String(widest).count
        func padded(_ number: Int?) -> String {
            let text = number.map(String.init) ?? ""
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
        var next = 0
        let built = hunks.enumerated().map { index, hunk in
            let lines = hunk.lines.map { line in
                defer { next += 1 }
                return DiffLine(
                    id: next, kind: line.kind, oldNumber: line.old, newNumber: line.new, text: line.text, tokens: line.tokens,
                    oldNumberText: padded(line.old), newNumberText: padded(line.new)
                )
            }
            return DiffHunk(
                id: index, header: hunk.header, oldStart: hunk.oldStart, oldCount: hunk.oldCount, newStart: hunk.newStart, newCount: hunk.newCount,
                section: hunk.section, lines: lines
            )
        }
        return UnifiedDiffText(oldPath: oldPath, newPath: newPath, hunks: built, otherLines: other)
    }

    private mutating func append(_ line: Line) {
        hunks[hunks.count - 1].lines.append(line)
    }

    /// `@@ -l[,n] +l[,n] @@[ section]`, nil for anything else.
    private static func hunk(_ line: String) -> Hunk? {
        guard line.hasPrefix("@@ -"), let close = line.range(of: " @@", range: line.index(line.startIndex, offsetBy: 3)..<line.endIndex) else {
            return nil
        }
        let ranges = line[line.index(line.startIndex, offsetBy: 4)..<close.lowerBound].split(separator: " ")
        guard ranges.count == 2, ranges[1].hasPrefix("+"), let old = range(ranges[0]), let new = range(ranges[1].dropFirst()) else { return nil }
        let section = line[close.upperBound...].trimmingCharacters(in: .whitespaces)
        return Hunk(
            header: line, oldStart: old.start, oldCount: old.count, newStart: new.start, newCount: new.count, section: section.isEmpty ? nil : section
        )
    }

    /// `12,3` or `12` (a count of 1).
    private static func range(_ text: Substring) -> (start: Int, count: Int)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 2, let start = Int(parts[0]), start >= 0 else { return nil }
        guard parts.count == 2 else { return (start, 1) }
        guard let count = Int(parts[1]), count >= 0 else { return nil }
        return (start, count)
    }

    private static func path(_ text: Substring, prefix: String) -> String? { DiffSummary.path(text, prefix: prefix) }
}
