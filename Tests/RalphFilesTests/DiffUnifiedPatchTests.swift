import Foundation
import RalphAPI
import RalphFiles
import Testing

@Suite("Unified diffs applied to the file as it is now")
struct DiffUnifiedPatchTests {
    /// The file after `patch` (one file, without headers) is applied to `text`.
    static func apply(_ patch: String, to text: String) throws -> String {
        try UnifiedPatch(patch).files[0].apply(to: TextLines(text)).text
    }

    @Test("a hunk is applied where its header says")
    func appliesInPlace() throws {
        let old = numberedLines(10)
        let patch = "@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n"
        #expect(try Self.apply(patch, to: old) == replacingLine(5, of: old, with: "five"))
    }

    @Test("hunks are found at an offset when lines were added or removed above them since the diff was made")
    func appliesAtOffset() throws {
        let old = numberedLines(30)
        let patch = "@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n@@ -19,3 +19,4 @@\n 19\n 20\n+20.5\n 21\n"
        let shifted = "a\nb\nc\n" + old
        let result = try Self.apply(patch, to: shifted)
        #expect(result == "a\nb\nc\n" + replacingLine(5, of: old, with: "five").replacingOccurrences(of: "\n20\n", with: "\n20\n20.5\n"))
        let shorter = old.replacingOccurrences(of: "1\n2\n", with: "")
        #expect(try Self.apply(patch, to: shorter).contains("\n20\n20.5\n21\n"))
    }

    @Test("a hunk whose context is not in the file is refused, naming the hunk")
    func contextNotFound() {
        let patch = "@@ -1,3 +1,3 @@\n 1\n 2\n 3\n@@ -8,3 +8,3 @@\n 8\n-nine\n+9\n 10\n"
        #expect(throws: DiffError.self) { try Self.apply(patch, to: numberedLines(10)) }
        do {
            _ = try Self.apply(patch, to: numberedLines(10))
        } catch let error as DiffError {
            #expect(error.description.hasPrefix("hunk 2 does not match the file as it is now: @@ -8,3 +8,3 @@ expects 3 line(s) starting '8'"))
        } catch {
            Issue.record(error)
        }
    }

    @Test("trailing whitespace the file has and the diff lacks is tolerated")
    func trailingWhitespace() throws {
        #expect(try Self.apply("@@ -1,2 +1,2 @@\n a\n-b\n+c\n", to: "a  \r\nb\t\n") == "a  \r\nc\n")
        #expect(throws: DiffError.self) { try Self.apply("@@ -1,2 +1,2 @@\n a\n-b\n+c\n", to: "  a\nb\n") }
    }

    @Test("no-newline markers remove or add the final newline")
    func newlineMarkers() throws {
        let remove = "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"
        #expect(try Self.apply(remove, to: "a\nb\n") == "a\nb")
        let add = "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
        #expect(try Self.apply(add, to: "a\nb") == "a\nb\n")
        #expect(try Self.apply("@@ -1,1 +1,1 @@\n-a\n+b\n", to: "a\nz") == "b\nz")
    }

    @Test("malformed diffs are refused: no hunk, a hunk cut short, a line of no known kind")
    func malformed() {
        #expect(throws: DiffError.malformedPatch("it has no @@ hunk", line: nil)) { try UnifiedPatch("just text\n") }
        #expect(throws: DiffError.malformedPatch("hunk 1 ends before its last line", line: 1)) { try UnifiedPatch("@@ -1,3 +1,3 @@\n a\n") }
        #expect(throws: DiffError.self) { try UnifiedPatch("@@ -1,2 +1,2 @@\n a\n*b\n") }
        #expect(throws: DiffError.self) { try UnifiedPatch("@@ -x +1 @@\n") }
    }

    @Test("a git diff of several files previews each, added and deleted files included")
    func severalFilesWithHeaders() {
        let ws = DiffWorkspace()
        ws.write("src/a.txt", numberedLines(10))
        ws.write("gone.txt", "bye\n")
        let patch = """
            diff --git a/src/a.txt b/src/a.txt
            index 1111111..2222222 100644
            --- a/src/a.txt
            +++ b/src/a.txt
            @@ -1,3 +1,3 @@
            -1
            +one
             2
             3
            --- /dev/null
            +++ b/new.txt
            @@ -0,0 +1 @@
            +fresh
            --- a/gone.txt
            +++ /dev/null
            @@ -1 +0,0 @@
            -bye

            """
        let diffs = ws.preview().preview(patch: patch)
        #expect(diffs.map(\.path) == ["src/a.txt", "new.txt", "gone.txt"])
        #expect(diffs.map(\.kind) == [.update, .add, .delete])
        #expect(diffs.allSatisfy { $0.error == nil })
        #expect(diffs[0].diff == "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n")
        #expect(diffs[1].diff == "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+fresh\n")
        #expect(diffs[2].diff == "--- a/gone.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n")
    }

    @Test("a diff without headers is applied to the file the caller names; a renamed file is a move")
    func headerlessAndRenamed() {
        let ws = DiffWorkspace()
        ws.write("b.txt", "x\ny\n")
        let named = ws.preview().preview(patch: "@@ -1,2 +1,2 @@\n x\n-y\n+z\n", path: "b.txt")
        #expect(named.first?.diff == "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n")
        #expect(ws.preview().preview(patch: "@@ -1,2 +1,2 @@\n x\n-y\n+z\n").first?.error == "the patch cannot be read: it names no file")
        let moved = ws.preview().preview(patch: "--- a/b.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+w\n")
        #expect(moved.first?.kind == .move)
        #expect(moved.first?.movePath == "c.txt")
        #expect(moved.first?.diff == "--- a/b.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+w\n")
    }

    @Test("a diff whose file is missing, or that adds a file that exists, is refused")
    func fileStateMismatch() {
        let ws = DiffWorkspace()
        ws.write("here.txt", "x\n")
        #expect(ws.preview().preview(patch: "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-x\n+y\n").first?.error == "'nope.txt' does not exist")
        #expect(ws.preview().preview(patch: "--- /dev/null\n+++ b/here.txt\n@@ -0,0 +1 @@\n+y\n").first?.error?.contains("already exists") == true)
    }
}
