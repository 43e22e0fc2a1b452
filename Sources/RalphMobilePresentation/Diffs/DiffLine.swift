import Foundation

/// One line of a unified diff as the diff view draws it: its kind (background and sign), its old and new line numbers,
/// and its text split into coloured tokens.
public struct DiffLine: Hashable, Sendable, Identifiable {
    public enum Kind: String, Hashable, Sendable {
        /// Unchanged: in both the old and the new file.
        case context
        case added
        case removed
        /// `\ No newline at end of file`, about the line before it.
        case marker
    }

    /// Its position in the file's diff (0, 1, 2 … across hunks).
    public let id: Int
    public let kind: Kind
    /// Its number in the file before the edit (context and removed lines).
    public let oldNumber: Int?
    /// Its number in the file after the edit (context and added lines).
    public let newNumber: Int?
    /// The line without its sign (for a marker, the words `No newline at end of file`).
    public let text: String
    /// ``text`` in coloured runs (empty for a marker).
    public let tokens: [SyntaxToken]
    /// ``oldNumber`` right-aligned to the widest number of the file (spaces when there is none), for a monospaced gutter.
    public let oldNumberText: String
    /// ``newNumber``, aligned the same way.
    public let newNumberText: String

    /// `+`, `-`, a space, or nothing for a marker.
    public var sign: String {
        switch kind {
        case .context: " "
        case .added: "+"
        case .removed: "-"
        case .marker: ""
        }
    }

    /// The line's background: green for added, red for removed, none (the view's own) otherwise.
    public var background: ThemeColor? {
        switch kind {
        case .added: .diffAdded
        case .removed: .diffRemoved
        case .context, .marker: nil
        }
    }

    /// The colour of the sign: the added or removed colour, or dimmed.
    public var signColor: ThemeColor {
        switch kind {
        case .added: .success
        case .removed: .danger
        case .context, .marker: .secondaryText
        }
    }

    /// For VoiceOver: `Added line 3: let x = 1`, `Removed line 2: two`, `Line 1: one`.
    public var accessibilityLabel: String {
        switch kind {
        case .added: "Added line \(newNumber ?? 0): " + text
        case .removed: "Removed line \(oldNumber ?? 0): " + text
        case .context: "Line \(newNumber ?? oldNumber ?? 0): " + text
        case .marker: text
        }
    }
}

/// One `@@ … @@` hunk: where it is in each file and its lines.
public struct DiffHunk: Hashable, Sendable, Identifiable {
    /// Its position in the file's diff (0, 1, 2 …).
    public let id: Int
    /// The whole `@@ -1,3 +1,4 @@ func f()` line.
    public let header: String
    public let oldStart: Int
    public let oldCount: Int
    public let newStart: Int
    public let newCount: Int
    /// What follows the second `@@` (a function or section name), nil when nothing does.
    public let section: String?
    public let lines: [DiffLine]

    /// `Lines 12 to 15` (of the new file; of the old one for a hunk that only removes).
    public var rangeText: String {
        let (start, count) = newCount > 0 ? (newStart, newCount) : (oldStart, oldCount)
        return count <= 1 ? "Line \(start)" : "Lines \(start) to \(start + count - 1)"
    }

    /// For VoiceOver: `Lines 1 to 3: 1 added, 1 removed`.
    public var accessibilityLabel: String {
        let added = lines.count { $0.kind == .added }
        let removed = lines.count { $0.kind == .removed }
        return rangeText + ": \(added) added, \(removed) removed" + (section.map { ", in " + $0 } ?? "")
    }
}

/// The text of a unified diff read into its file headers, hunks and lines, each line coloured in ``language``.
///
/// `--- a/<path>` and `+++ b/<path>` headers give the paths (nil for `/dev/null`); `@@ -l,n +l,n @@` hunks are read
/// line by line, their counts telling where a hunk ends, so a removed line that reads `--- …` is still a line. Lines
/// outside every hunk that are not headers (`Binary file x changed`) are kept in ``otherLines``.
public struct UnifiedDiffText: Hashable, Sendable {
    /// The old file's path without `a/`; nil for `/dev/null` (an added file) or when there is no header.
    public let oldPath: String?
    /// The new file's path without `b/`; nil for `/dev/null` (a deleted file) or when there is no header.
    public let newPath: String?
    public let hunks: [DiffHunk]
    public let otherLines: [String]

    /// Every line of every hunk, in order.
    public var lines: [DiffLine] { hunks.flatMap(\.lines) }

    public init(parsing text: String, language: SyntaxLanguage = .plain) {
        var reader = UnifiedDiffReader(highlighter: SyntaxHighlighter(language))
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for line in lines { reader.read(String(line)) }
        self = reader.finish()
    }

    init(oldPath: String?, newPath: String?, hunks: [DiffHunk], otherLines: [String]) {
        self.oldPath = oldPath
        self.newPath = newPath
        self.hunks = hunks
        self.otherLines = otherLines
    }
}
