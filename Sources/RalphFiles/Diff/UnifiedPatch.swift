import Foundation

/// A unified diff read back as files and hunks, to be applied to files as they are now (see `UnifiedPatch+Apply`).
///
/// Accepts what `diff -u` and `git diff` write: optional `--- <old>` / `+++ <new>` headers per file (a leading `a/` or
/// `b/` is dropped, a tab and what follows it too; `/dev/null` marks an added or deleted file), other lines between
/// files (`diff --git`, `index …`) ignored, and hunks `@@ -l[,n] +l[,n] @@` whose lines start with ` `, `-` or `+` (an
/// empty line is an empty context line), with `\ No newline at end of file` after a line that has none. Hunks before any
/// header belong to one file without paths, which the caller names.
public struct UnifiedPatch: Sendable, Hashable {
    /// One line of a hunk.
    public struct Line: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case context
            case removed
            case added
        }

        public var kind: Kind
        public var text: String
        /// A `\ No newline at end of file` follows the line.
        public var missingNewline: Bool
    }

    /// One `@@` hunk.
    public struct Hunk: Sendable, Hashable {
        /// The 1-based first old line (the line after which to insert when ``oldCount`` is 0).
        public var oldStart: Int
        public var oldCount: Int
        public var newStart: Int
        public var newCount: Int
        public var lines: [Line]

        public init(oldStart: Int, oldCount: Int, newStart: Int, newCount: Int, lines: [Line]) {
            self.oldStart = oldStart
            self.oldCount = oldCount
            self.newStart = newStart
            self.newCount = newCount
            self.lines = lines
        }

        /// The lines the hunk expects in the file: its context and removed lines.
        var oldLines: [String] { lines.filter { $0.kind != .added }.map(\.text) }
    }

    /// The hunks of one file.
    public struct File: Sendable, Hashable {
        /// The old path from `---` (`/dev/null` for an added file), nil without headers.
        public var oldPath: String?
        /// The new path from `+++` (`/dev/null` for a deleted file), nil without headers.
        public var newPath: String?
        public var hunks: [Hunk]

        public init(oldPath: String?, newPath: String?, hunks: [Hunk]) {
            self.oldPath = oldPath
            self.newPath = newPath
            self.hunks = hunks
        }

        /// The file does not exist before the patch.
        public var isAdded: Bool { oldPath == UnifiedDiff.devNull }
        /// The file does not exist after the patch.
        public var isDeleted: Bool { newPath == UnifiedDiff.devNull }
    }

    public var files: [File]

    /// Reads a unified diff; throws when it has no hunk or a hunk is cut short or holds a line of no known kind.
    public init(_ text: String) throws(DiffError) {
        let lines = TextLines(text).lines
        var files: [File] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("--- "), index + 1 < lines.count, lines[index + 1].hasPrefix("+++ ") {
                files.append(File(oldPath: Self.path(line.dropFirst(4), side: "a/"), newPath: Self.path(lines[index + 1].dropFirst(4), side: "b/"), hunks: []))
                index += 2
            } else if line.hasPrefix("@@") {
                if files.isEmpty { files.append(File(oldPath: nil, newPath: nil, hunks: [])) }
                let number = files[files.count - 1].hunks.count + 1
                let hunk = try Self.hunk(lines, at: &index, number: number)
                files[files.count - 1].hunks.append(hunk)
            } else {
                index += 1
            }
        }
        files.removeAll { $0.hunks.isEmpty && !$0.isAdded && !$0.isDeleted }
        guard !files.isEmpty else { throw .malformedPatch("it has no @@ hunk", line: nil) }
        self.files = files
    }

    /// A header's path: up to a tab, without the side's `a/` or `b/`.
    static func path(_ label: Substring, side: String) -> String {
        var path = label.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        path = path.trimmingCharacters(in: .whitespaces)
        if path.hasPrefix(side) { path.removeFirst(side.count) }
        return path
    }

    /// Reads the hunk whose header is at `index`, leaving `index` after it.
    static func hunk(_ lines: [String], at index: inout Int, number: Int) throws(DiffError) -> Hunk {
        let headerLine = index + 1
        guard let header = header(lines[index]) else { throw .malformedPatch("hunk \(number) has no valid @@ header", line: headerLine) }
        var hunk = Hunk(oldStart: header.0, oldCount: header.1, newStart: header.2, newCount: header.3, lines: [])
        var oldLeft = hunk.oldCount, newLeft = hunk.newCount
        index += 1
        while oldLeft > 0 || newLeft > 0 || (index < lines.count && lines[index].hasPrefix("\\")) {
            guard index < lines.count else { throw .malformedPatch("hunk \(number) ends before its last line", line: headerLine) }
            let line = lines[index]
            let kind: Line.Kind
            switch line.utf8.first {
            case UInt8(ascii: " "), nil: kind = .context
            case UInt8(ascii: "-"): kind = .removed
            case UInt8(ascii: "+"): kind = .added
            case UInt8(ascii: "\\"):
                if !hunk.lines.isEmpty { hunk.lines[hunk.lines.count - 1].missingNewline = true }
                index += 1
                continue
            default:
                throw .malformedPatch("hunk \(number) has a line that is not context, removed or added", line: index + 1)
            }
            if kind != .added { oldLeft -= 1 }
            if kind != .removed { newLeft -= 1 }
            guard oldLeft >= 0, newLeft >= 0 else { throw .malformedPatch("hunk \(number) has more lines than its header says", line: index + 1) }
            hunk.lines.append(Line(kind: kind, text: String(line.dropFirst()), missingNewline: false))
            index += 1
        }
        return hunk
    }

    /// `(oldStart, oldCount, newStart, newCount)` from `@@ -l[,n] +l[,n] @@…`.
    static func header(_ line: String) -> (Int, Int, Int, Int)? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 3, parts[0] == "@@", parts[1].hasPrefix("-"), parts[2].hasPrefix("+") else { return nil }
        guard let old = range(parts[1].dropFirst()), let new = range(parts[2].dropFirst()) else { return nil }
        guard parts.count == 3 || parts[3] == "@@" else { return nil }
        return (old.0, old.1, new.0, new.1)
    }

    private static func range(_ text: Substring) -> (Int, Int)? {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false)
        guard numbers.count <= 2, let start = Int(numbers[0]), start >= 0 else { return nil }
        guard numbers.count == 2 else { return (start, 1) }
        guard let count = Int(numbers[1]), count >= 0 else { return nil }
        return (start, count)
    }
}
