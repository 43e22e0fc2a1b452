import Foundation
import RalphAPI

/// One file of an edit as the diff view shows it: the summary line, then the hunks with numbered, coloured lines,
/// then what was left out. Built from a ``RalphAPI/FileDiff`` by parsing its unified text (``UnifiedDiffText``), so
/// build it where it is shown; lists use ``DiffSummary``, which does not parse.
public struct DiffFile: Hashable, Sendable, Identifiable {
    public let summary: DiffSummary
    /// The language its lines are coloured in, from the file's extension.
    public let language: SyntaxLanguage
    public let hunks: [DiffHunk]
    /// `Binary file x changed`, for a binary file (nothing else is shown).
    public let binaryText: String?

    public var id: String { summary.id }
    public var title: String { summary.title }

    public init(_ diff: FileDiff, index: Int = 0) {
        summary = DiffSummary(diff, index: index)
        language = SyntaxLanguage(path: diff.movePath ?? diff.path)
        let parsed = diff.binary || diff.error != nil ? nil : UnifiedDiffText(parsing: diff.diff, language: language)
        hunks = parsed?.hunks ?? []
        binaryText = diff.binary ? (diff.diff.isEmpty ? "Binary file changed" : ChatFormat.firstLine(diff.diff, limit: 200)) : nil
    }

    /// The files of an edit, in order (none for nil).
    public static func files(_ diffs: [FileDiff]?) -> [DiffFile] {
        (diffs ?? []).enumerated().map { DiffFile($1, index: $0) }
    }

    /// Every line of every hunk.
    public var lines: [DiffLine] { hunks.flatMap(\.lines) }

    /// Whether there are lines to draw.
    public var hasLines: Bool { !hunks.isEmpty }

    /// What to say where the lines would be when there are none: the error, that the file is binary, or that nothing
    /// changes.
    public var emptyText: String? {
        guard !hasLines else { return nil }
        return summary.errorText ?? binaryText ?? "No lines change."
    }

    /// For VoiceOver, the file as a whole.
    public var accessibilityLabel: String { summary.accessibilityLabel }
}
