import Foundation
import RalphAPI
import Testing

@testable import RalphMobilePresentation

/// Diffs as the diff view shows them: the unified text read into hunks and numbered lines, and the summary of a file.
@Suite("Diffs: unified text into hunks and lines, and each file's summary")
struct DiffValuesTests {
    /// `sign + text` of each line, the way the diff reads.
    static func signed(_ lines: [DiffLine]) -> [String] { lines.map { $0.sign + $0.text } }

    @Test("a diff's headers, hunk and lines: kinds, old and new numbers, aligned numbers, and the no-newline marker")
    func parsesHunk() throws {
        let parsed = UnifiedDiffText(parsing: DiffFixtures.swiftEdit.diff, language: .swift)
        #expect(parsed.oldPath == "Sources/Clock.swift" && parsed.newPath == "Sources/Clock.swift")
        #expect(parsed.otherLines.isEmpty)
        let hunk = try #require(parsed.hunks.first)
        #expect(parsed.hunks.count == 1)
        #expect((hunk.oldStart, hunk.oldCount, hunk.newStart, hunk.newCount) == (1, 5, 1, 7))
        #expect(hunk.header == "@@ -1,5 +1,7 @@" && hunk.section == nil)
        #expect(hunk.rangeText == "Lines 1 to 7" && hunk.accessibilityLabel == "Lines 1 to 7: 4 added, 2 removed")
        let lines = hunk.lines
        #expect(lines.map(\.kind) == [.context, .context, .removed, .removed, .added, .added, .added, .added, .context, .marker])
        #expect(lines.map(\.oldNumber) == [1, 2, 3, 4, nil, nil, nil, nil, 5, nil])
        #expect(lines.map(\.newNumber) == [1, 2, nil, nil, 3, 4, 5, 6, 7, nil])
        #expect(lines.map(\.id) == Array(0..<10))
        #expect(lines[1].text.isEmpty && lines[1].sign == " ")
        #expect(lines[9].text == "No newline at end of file" && lines[9].sign.isEmpty && lines[9].tokens.isEmpty)
        #expect(lines[2].oldNumberText == "3" && lines[2].newNumberText == " ", "numbers are aligned to the widest (one digit here)")
        #expect(lines[2].background == .diffRemoved && lines[4].background == .diffAdded && lines[0].background == nil)
        #expect(lines[4].signColor == .success && lines[2].signColor == .danger)
        #expect(lines[4].accessibilityLabel == "Added line 3: /// The current time, read once per report.")
        #expect(lines[2].accessibilityLabel == "Removed line 3: /// The current time.")
        #expect(lines[8].accessibilityLabel == "Line 7: let limit = 42")
    }

    @Test("a removed line that reads like a header stays a line: a hunk ends by its counts, not by what a line looks like")
    func headerLikeLines() {
        let text = "--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n--- old rule\n+++ new rule\n keep\n"
        let parsed = UnifiedDiffText(parsing: text)
        #expect(parsed.oldPath == "notes.md")
        #expect(Self.signed(parsed.lines) == ["--- old rule", "+++ new rule", " keep"])
        #expect(parsed.lines.map(\.kind) == [.removed, .added, .context])
    }

    @Test("several hunks, counts left out (one line), a section name, an empty context line, and wide numbers padded")
    func severalHunks() {
        let text = [
            "--- a/a.txt", "+++ b/a.txt", "@@ -3 +3 @@ struct Clock {", "-x", "+y", "@@ -98,3 +98,4 @@", " a", "", "+b", " c",
        ].joined(separator: "\n")
        let parsed = UnifiedDiffText(parsing: text)
        #expect(parsed.hunks.count == 2)
        #expect(parsed.hunks[0].section == "struct Clock {" && parsed.hunks[0].oldCount == 1 && parsed.hunks[0].rangeText == "Line 3")
        #expect(parsed.hunks[0].accessibilityLabel == "Line 3: 1 added, 1 removed, in struct Clock {")
        #expect(Self.signed(parsed.hunks[1].lines) == [" a", " ", "+b", " c"], "the empty line is a context line that lost its space")
        #expect(parsed.hunks[1].lines.map(\.newNumber) == [98, 99, 100, 101])
        #expect(parsed.hunks[1].lines.map(\.id) == [2, 3, 4, 5], "ids run on across hunks")
        #expect(parsed.hunks[0].lines[0].oldNumberText == "  3" && parsed.hunks[1].lines[2].oldNumberText == "   ")
    }

    @Test("an added file starts at line 1; a deleted one names the old path; text outside hunks is kept; nothing is nothing")
    func addedDeletedOther() {
        let added = UnifiedDiffText(parsing: DiffFixtures.pythonAdd.diff, language: .python)
        #expect(added.oldPath == nil && added.newPath == "scripts/report.py")
        #expect(added.lines.map(\.newNumber) == [1, 2, 3] && added.lines.allSatisfy { $0.oldNumber == nil && $0.kind == .added })
        let deleted = UnifiedDiffText(parsing: "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")
        #expect(deleted.oldPath == "old.txt" && deleted.newPath == nil && deleted.lines.map(\.oldNumber) == [1, 2])
        let binary = UnifiedDiffText(parsing: "Binary file logo.png changed\n")
        #expect(binary.hunks.isEmpty && binary.otherLines == ["Binary file logo.png changed"])
        #expect(UnifiedDiffText(parsing: "").hunks.isEmpty && UnifiedDiffText(parsing: "").otherLines.isEmpty)
        #expect(UnifiedDiffText(parsing: "@@ -x +1 @@\n+a\n").hunks.isEmpty, "a malformed hunk header is not a hunk")
    }

    @Test("summaries: the path from the diff's header, +added −removed, new file, binary, no diff with the error in words, what was cut")
    func summaries() {
        let swift = DiffSummary(DiffFixtures.swiftEdit)
        #expect(swift.text == "Sources/Clock.swift · +4 −2" && swift.kindText == nil && swift.tone == .neutral)
        #expect(swift.accessibilityLabel == "Sources/Clock.swift: 4 lines added, 2 lines removed")
        #expect(swift.addedText == "+4" && swift.removedText == "−2")
        #expect(DiffSummary(DiffFixtures.pythonAdd).text == "scripts/report.py · new file · +3")
        let failed = DiffSummary(DiffFixtures.failedEdit)
        #expect(failed.text == "…/app/README.md · no diff" && failed.tone == .danger)
        #expect(failed.errorText == "No diff: the text to replace is not in the file as it is now.")
        #expect(failed.addedText == nil && DiffSummary(DiffFixtures.pythonAdd).removedText == nil)
        #expect(DiffSummary(DiffFixtures.binaryWrite).text == "Assets/logo.png · binary file changed")
        let cut = DiffSummary(DiffFixtures.truncated)
        #expect(cut.truncationText == "1,234 more lines not shown" && cut.text == "Sources/Big.swift · +40 −38")
        #expect(DiffSummary.omitted(1) == "1 more line not shown" && DiffSummary.omitted(nil) == "The rest of the diff is not shown")
        let deleted = FileDiff(path: "/w/app/gone.txt", kind: .delete, diff: "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", removed: 1)
        #expect(DiffSummary(deleted).text == "gone.txt · deleted · −1")
        let moved = FileDiff(path: "/w/app/a.txt", movePath: "/w/app/b.txt", kind: .move, diff: "--- a/a.txt\n+++ b/b.txt\n")
        #expect(DiffSummary(moved).text == "a.txt → b.txt · moved")
        #expect(DiffSummary(FileDiff(path: "same.txt", kind: .update)).text == "same.txt · no changes")
        let note = FileDiff(path: "x.txt", kind: .update, diff: "", note: "compared whole")
        #expect(DiffSummary(note).note == "compared whole")
        let both = [DiffFixtures.swiftEdit, DiffFixtures.pythonAdd].enumerated().map { DiffSummary($1, index: $0) }
        #expect(DiffSummary.line(both) == "2 files · +7 −2" && DiffSummary.line([swift]) == swift.text && DiffSummary.line([]) == nil)
        #expect(Set(both.map(\.id)).count == 2)
    }

    @Test("a file: its language from the extension, its hunks, and for a binary file or an error the words instead of lines")
    func files() {
        let swift = DiffFile(DiffFixtures.swiftEdit)
        #expect(swift.language == .swift && swift.hasLines && swift.emptyText == nil && swift.lines.count == 10)
        #expect(swift.lines[3].tokens.first == SyntaxToken(.keyword, "func"))
        let binary = DiffFile(DiffFixtures.binaryWrite)
        #expect(!binary.hasLines && binary.binaryText == "Binary file Assets/logo.png changed" && binary.emptyText == binary.binaryText)
        let failed = DiffFile(DiffFixtures.failedEdit)
        #expect(failed.emptyText == "No diff: the text to replace is not in the file as it is now." && failed.language == .plain)
        #expect(DiffFile.files(nil).isEmpty && DiffFile.files([DiffFixtures.swiftEdit, DiffFixtures.pythonAdd]).map(\.language) == [.swift, .python])
    }

    @Test("every colour a diff is written in is readable on every line background, in every theme")
    func contrast() {
        let colours = SyntaxToken.Kind.allCases.map(SyntaxToken.color(of:)) + [.secondaryText]
        for theme in AppTheme.allCases {
            for background in ThemeColor.diffBackgrounds {
                for colour in colours {
                    let ratio = colour.contrastRatio(with: background, in: theme)
                    #expect(ratio >= 4.5, "\(colour.token) on \(background.token) in \(theme): \(ratio)")
                }
            }
            #expect(ThemeColor.success.contrastRatio(with: .diffAdded, in: theme) >= 4.5, "the + sign")
            #expect(ThemeColor.danger.contrastRatio(with: .diffRemoved, in: theme) >= 4.5, "the - sign")
            #expect(ThemeColor.diffAdded.rgb(in: theme) != ThemeColor.surface.rgb(in: theme))
        }
    }
}
