/// A unified diff of two texts, as `diff -u` and `git diff` write it: `--- <old>` / `+++ <new>` headers, then hunks
/// `@@ -l,n +l,n @@` of changed lines with ``Limits/context`` lines of context around them (hunks whose contexts would
/// meet are merged into one), and `\ No newline at end of file` after a last line that has none.
///
/// A long diff is cut at a line boundary once it passes ``Limits/maxLines`` lines or ``Limits/maxBytes`` bytes: the
/// first part is kept, ``truncated`` is set and ``omittedLines`` counts the rest; ``added`` and ``removed`` always count
/// the whole diff.
///
/// ```swift
/// let diff = UnifiedDiff(old: TextLines("a\nb\n"), new: TextLines("a\nc\n"), oldLabel: "a/f.txt", newLabel: "b/f.txt")
/// // --- a/f.txt
/// // +++ b/f.txt
/// // @@ -1,2 +1,2 @@
/// //  a
/// // -b
/// // +c
/// ```
public struct UnifiedDiff: Sendable, Hashable {
    /// The label of the side of an added or deleted file.
    public static let devNull = "/dev/null"

    /// How much context to show and how much diff to keep.
    public struct Limits: Sendable, Hashable {
        /// Unchanged lines shown before and after each change.
        public var context: Int
        /// The most lines (hunk headers, diff lines, no-newline markers) kept after the two file headers.
        public var maxLines: Int
        /// The most bytes kept after the two file headers.
        public var maxBytes: Int
        /// How far the line diff searches for the smallest script.
        public var search: LineDiff.Limits

        public init(context: Int = 3, maxLines: Int = 1_000, maxBytes: Int = 128 * 1024, search: LineDiff.Limits = LineDiff.Limits()) {
            self.context = context
            self.maxLines = maxLines
            self.maxBytes = maxBytes
            self.search = search
        }
    }

    /// The diff text: empty when the texts are the same and neither label is ``devNull``.
    public var text: String
    /// Lines added (in the whole diff).
    public var added: Int
    /// Lines removed (in the whole diff).
    public var removed: Int
    /// Whether ``text`` holds only the first part of the diff.
    public var truncated: Bool
    /// Diff lines left out of ``text``.
    public var omittedLines: Int
    /// False when the change was too large to search for the smallest script, and the changed region is shown removed
    /// and added whole.
    public var isMinimal: Bool

    /// The diff from `old` to `new`, with the headers `--- <oldLabel>` and `+++ <newLabel>`.
    public init(old: TextLines, new: TextLines, oldLabel: String, newLabel: String, limits: Limits = Limits()) {
        let script = LineDiff.script(from: Self.keys(old), to: Self.keys(new), limits: limits.search)
        let hunks = Self.hunks(script.operations, context: limits.context)
        var output = Output(maxLines: limits.maxLines, maxBytes: limits.maxBytes)
        if !hunks.isEmpty || oldLabel == Self.devNull || newLabel == Self.devNull {
            output.text = "--- \(oldLabel)\n+++ \(newLabel)\n"
        }
        let positions = Positions(script.operations)
        for hunk in hunks {
            Self.write(hunk, of: script.operations, positions: positions, old: old, new: new, to: &output)
        }
        self.text = output.text
        self.added = script.insertions
        self.removed = script.deletions
        self.truncated = output.isFull
        self.omittedLines = output.total - output.shown
        self.isMinimal = script.isMinimal
    }

    /// The lines as keys for the line diff: a last line without a newline differs from the same text with one.
    static func keys(_ text: TextLines) -> [LineKey] {
        text.lines.indices.map { LineKey(text: text.lines[$0], missingNewline: $0 == text.lines.count - 1 && !text.endsWithNewline) }
    }

    /// The ranges of operations each hunk shows: every change with `context` operations around it, merged when the
    /// unchanged lines between two changes are no more than twice the context.
    static func hunks(_ operations: [LineDiff.Operation], context: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var first: Int?
        var last = 0
        for (index, operation) in operations.enumerated() where operation != .keep {
            if let start = first, index - last - 1 > 2 * context {
                ranges.append(max(0, start - context)..<min(operations.count, last + 1 + context))
                first = index
            } else if first == nil {
                first = index
            }
            last = index
        }
        if let start = first { ranges.append(max(0, start - context)..<min(operations.count, last + 1 + context)) }
        return ranges
    }

    /// Where each operation starts in the old and the new lines.
    struct Positions {
        var old: [Int]
        var new: [Int]

        init(_ operations: [LineDiff.Operation]) {
            old = [0]
            new = [0]
            old.reserveCapacity(operations.count + 1)
            new.reserveCapacity(operations.count + 1)
            for operation in operations {
                old.append(old[old.count - 1] + (operation == .insert ? 0 : 1))
                new.append(new[new.count - 1] + (operation == .delete ? 0 : 1))
            }
        }
    }

    /// Writes one hunk: its header and its lines.
    private static func write(
        _ hunk: Range<Int>, of operations: [LineDiff.Operation], positions: Positions, old: TextLines, new: TextLines, to output: inout Output
    ) {
        let oldCount = positions.old[hunk.upperBound] - positions.old[hunk.lowerBound]
        let newCount = positions.new[hunk.upperBound] - positions.new[hunk.lowerBound]
        let oldStart = positions.old[hunk.lowerBound] + (oldCount > 0 ? 1 : 0)
        let newStart = positions.new[hunk.lowerBound] + (newCount > 0 ? 1 : 0)
        output.line("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
        for index in hunk {
            let oldIndex = positions.old[index], newIndex = positions.new[index]
            switch operations[index] {
            case .keep: output.line(" ", old.lines[oldIndex])
            case .delete: output.line("-", old.lines[oldIndex])
            case .insert: output.line("+", new.lines[newIndex])
            }
            let endsOld = operations[index] != .insert && oldIndex == old.lines.count - 1 && !old.endsWithNewline
            let endsNew = operations[index] == .insert && newIndex == new.lines.count - 1 && !new.endsWithNewline
            if endsOld || endsNew { output.line("\\ No newline at end of file") }
        }
    }

    /// The text being written, and what the limits let into it.
    struct Output {
        var text = ""
        let maxLines: Int
        let maxBytes: Int
        /// Lines after the file headers, written or not.
        var total = 0
        /// Lines after the file headers written.
        var shown = 0
        var bytes = 0
        var isFull = false

        init(maxLines: Int, maxBytes: Int) {
            self.maxLines = maxLines
            self.maxBytes = maxBytes
        }

        /// Writes `prefix` and `content` as one line, unless the limits were reached.
        mutating func line(_ prefix: String, _ content: String = "") {
            total += 1
            guard !isFull else { return }
            let size = prefix.utf8.count + content.utf8.count + 1
            guard shown < maxLines, bytes + size <= maxBytes else {
                isFull = true
                return
            }
            text += prefix
            text += content
            text += "\n"
            shown += 1
            bytes += size
        }
    }
}
