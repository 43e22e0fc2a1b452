import Foundation
import RalphFiles
import Testing

@Suite("Unified diff: hunks, context, missing newlines and truncation")
struct DiffUnifiedTests {
    static func render(_ old: String, _ new: String, limits: UnifiedDiff.Limits = UnifiedDiff.Limits()) -> UnifiedDiff {
        UnifiedDiff(old: TextLines(old), new: TextLines(new), oldLabel: "a/f.txt", newLabel: "b/f.txt", limits: limits)
    }

    /// The diff's text without its two file headers.
    static func body(_ diff: UnifiedDiff) -> String {
        diff.text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).joined(separator: "\n")
    }

    @Test("text is split into lines and joined back, with or without a final newline")
    func textLines() {
        #expect(TextLines("a\nb").lines == ["a", "b"])
        #expect(!TextLines("a\nb").endsWithNewline)
        #expect(TextLines("a\nb\n").endsWithNewline)
        #expect(TextLines("").lines.isEmpty)
        #expect(TextLines("\n").lines == [""])
        #expect(TextLines("a\r\nb\r\n").lines == ["a\r", "b\r"])
        for text in ["", "a", "a\n", "a\n\nb", "\n\n", "x\r\ny"] { #expect(TextLines(text).text == text) }
    }

    @Test("one changed line is one hunk with three lines of context on each side")
    func oneHunk() {
        let old = numberedLines(10)
        let diff = Self.render(old, replacingLine(5, of: old, with: "five"))
        #expect(diff.text == "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n")
        #expect(diff.added == 1)
        #expect(diff.removed == 1)
        #expect(!diff.truncated)
        #expect(diff.isMinimal)
    }

    @Test("changes far apart are separate hunks with their own line numbers")
    func hunksFarApart() {
        let old = numberedLines(20)
        let new = replacingLine(18, of: replacingLine(2, of: old, with: "two"), with: "eighteen")
        let diff = Self.render(old, new)
        #expect(Self.body(diff) == "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n")
    }

    @Test("hunks whose contexts meet are merged: six unchanged lines between changes merge, seven do not")
    func mergedHunks() {
        let old = numberedLines(30)
        let merged = Self.render(old, replacingLine(12, of: replacingLine(5, of: old, with: "x"), with: "y"))
        #expect(Self.body(merged) == "@@ -2,14 +2,14 @@\n 2\n 3\n 4\n-5\n+x\n 6\n 7\n 8\n 9\n 10\n 11\n-12\n+y\n 13\n 14\n 15\n")
        let split = Self.render(old, replacingLine(13, of: replacingLine(5, of: old, with: "x"), with: "y"))
        #expect(Self.body(split) == "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+x\n 6\n 7\n 8\n@@ -10,7 +10,7 @@\n 10\n 11\n 12\n-13\n+y\n 14\n 15\n 16\n")
    }

    @Test("the first and the last line have context on one side only")
    func firstAndLastLine() {
        let old = numberedLines(10)
        #expect(Self.body(Self.render(old, replacingLine(1, of: old, with: "one"))) == "@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n")
        #expect(Self.body(Self.render(old, replacingLine(10, of: old, with: "ten"))) == "@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n")
        #expect(Self.body(Self.render("a\n", "a\nb\n")) == "@@ -1,1 +1,2 @@\n a\n+b\n")
        #expect(Self.body(Self.render("a\nb\n", "b\n")) == "@@ -1,2 +1,1 @@\n-a\n b\n")
    }

    @Test("a side without a final newline gets its marker, and adding or removing the newline is a change")
    func missingFinalNewline() {
        let marker = "\\ No newline at end of file"
        #expect(Self.body(Self.render("a\nb", "a\nb\n")) == "@@ -1,2 +1,2 @@\n a\n-b\n\(marker)\n+b\n")
        #expect(Self.body(Self.render("a\nb\n", "a\nb")) == "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\(marker)\n")
        #expect(Self.body(Self.render("a\nb\n", "a\nc")) == "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\(marker)\n")
        #expect(Self.body(Self.render("a\nb\nc", "x\nb\nc")) == "@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n\(marker)\n")
        #expect(Self.body(Self.render("a\nb", "a\nc")) == "@@ -1,2 +1,2 @@\n a\n-b\n\(marker)\n+c\n\(marker)\n")
        #expect(Self.render("a\nb", "a\nb").text.isEmpty)
    }

    @Test("an added file is shown whole from /dev/null, a deleted one whole to /dev/null")
    func addedAndDeleted() {
        let added = UnifiedDiff(old: TextLines(""), new: TextLines("hello\nworld\n"), oldLabel: UnifiedDiff.devNull, newLabel: "b/new.txt")
        #expect(added.text == "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n")
        let deleted = UnifiedDiff(old: TextLines("hello\nworld"), new: TextLines(""), oldLabel: "a/old.txt", newLabel: UnifiedDiff.devNull)
        #expect(deleted.text == "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-hello\n-world\n\\ No newline at end of file\n")
        let empty = UnifiedDiff(old: TextLines(""), new: TextLines(""), oldLabel: UnifiedDiff.devNull, newLabel: "b/empty.txt")
        #expect(empty.text == "--- /dev/null\n+++ b/empty.txt\n")
    }

    @Test("a long diff keeps its first 1 000 lines and counts the lines left out")
    func truncatedByLines() {
        let old = (1...600).map { "old \($0)" }.joined(separator: "\n") + "\n"
        let new = (1...600).map { "new \($0)" }.joined(separator: "\n") + "\n"
        let diff = Self.render(old, new)
        #expect(diff.truncated)
        #expect(diff.added == 600)
        #expect(diff.removed == 600)
        #expect(diff.omittedLines == 1 + 1_200 - 1_000)
        #expect(diff.text.split(separator: "\n").count == 2 + 1_000)
        #expect(diff.text.hasSuffix("\n"))
        #expect(!Self.render(old, old + "x\n").truncated)
    }

    @Test("a diff over 128 KiB is cut at a line boundary")
    func truncatedByBytes() {
        let long = String(repeating: "x", count: 20_000)
        let old = (1...10).map { "\($0) \(long)" }.joined(separator: "\n") + "\n"
        let new = (1...10).map { "\($0) \(long)y" }.joined(separator: "\n") + "\n"
        let diff = Self.render(old, new)
        #expect(diff.truncated)
        #expect(diff.text.utf8.count <= 128 * 1024 + 30)
        let shown = diff.text.split(separator: "\n").count - 2
        #expect(shown == 7)
        #expect(diff.omittedLines == 21 - shown)
        #expect(diff.text.split(separator: "\n").dropFirst(3).allSatisfy { $0.hasPrefix("-") })
    }

    @Test("the context and limits can be changed")
    func customContext() {
        let old = numberedLines(10)
        let diff = Self.render(old, replacingLine(5, of: old, with: "five"), limits: UnifiedDiff.Limits(context: 1))
        #expect(Self.body(diff) == "@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n")
    }
}
