import Foundation
import RalphAPI
import RalphFiles
import Testing

@Suite("Codex apply_patch patches: parsed into file operations and applied to the files as they are now")
struct DiffCodexPatchTests {
    static func patch(_ body: String) -> String { "*** Begin Patch\n" + body + "*** End Patch\n" }

    @Test("a patch is read into its operations: add, delete, update with a move, chunks with @@ lines and End of File")
    func parses() throws {
        let text = Self.patch(
            "*** Add File: docs/new.md\n+hello\n+\n*** Delete File: old.txt\n*** Update File: src/app.py\n*** Move to: src/main.py\n"
                + "@@ def greet():\n-    print(\"hi\")\n+    print(\"hello\")\n@@\n context\n-x\n+y\n*** End of File\n")
        let patch = try CodexPatch(text)
        #expect(patch.operations.count == 3)
        #expect(patch.operations[0] == .add(path: "docs/new.md", content: "hello\n\n"))
        #expect(patch.operations[1] == .delete(path: "old.txt"))
        guard case .update(let path, let moveTo, let chunks) = patch.operations[2] else {
            Issue.record("not an update: \(patch.operations[2])")
            return
        }
        #expect(path == "src/app.py" && moveTo == "src/main.py")
        #expect(chunks.count == 2)
        #expect(chunks[0].context == "def greet():")
        #expect(chunks[0].oldLines == ["    print(\"hi\")"] && chunks[0].newLines == ["    print(\"hello\")"])
        #expect(chunks[1].context == nil && chunks[1].isEndOfFile)
        #expect(chunks[1].oldLines == ["context", "x"] && chunks[1].newLines == ["context", "y"])
    }

    @Test("malformed patches are refused, naming the line")
    func malformed() {
        #expect(throws: DiffError.malformedPatch("the first line is not '*** Begin Patch'", line: 1)) { try CodexPatch("hello\n*** End Patch") }
        #expect(throws: DiffError.self) { try CodexPatch("*** Begin Patch\n*** Add File: a\n+x\n") }
        #expect(throws: DiffError.self) { try CodexPatch(Self.patch("*** Frobnicate File: a\n")) }
        #expect(throws: DiffError.self) { try CodexPatch(Self.patch("*** Update File: a\n")) }
        #expect(throws: DiffError.self) { try CodexPatch(Self.patch("*** Update File: a\n@@\n x\n?y\n")) }
    }

    @Test("one patch updates, adds and deletes several files, each shown against its file")
    func severalFiles() {
        let ws = DiffWorkspace()
        ws.write("src/app.py", "def greet():\n    print(\"hi\")\n\ngreet()\n")
        ws.write("old.txt", "bye\n")
        let text = Self.patch(
            "*** Update File: src/app.py\n@@ def greet():\n-    print(\"hi\")\n+    print(\"hello\")\n"
                + "*** Add File: docs/new.md\n+# New\n*** Delete File: old.txt\n")
        let diffs = ws.preview().preview(patch: text)
        #expect(diffs.map(\.kind) == [.update, .add, .delete])
        #expect(diffs.allSatisfy { $0.error == nil })
        #expect(diffs[0].diff == "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,4 +1,4 @@\n def greet():\n-    print(\"hi\")\n+    print(\"hello\")\n \n greet()\n")
        #expect(diffs[1].diff == "--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,1 @@\n+# New\n")
        #expect(diffs[2].diff == "--- a/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n")
        #expect(ws.text("old.txt") == "bye\n" && ws.text("docs/new.md") == nil, "a preview writes nothing")
    }

    @Test("a chunk is found wherever its lines are, after its @@ line, when the file moved on since the patch was written")
    func offsetChunks() throws {
        let before = (["header"] + (1...40).map { "line \($0)" } + ["func b() {", "    return 1", "}"]).joined(separator: "\n") + "\n"
        let chunks = [CodexPatch.Chunk(context: "func b() {", oldLines: ["    return 1"], newLines: ["    return 2"], isEndOfFile: false)]
        let after = try CodexPatch.apply(chunks, to: before)
        #expect(after == before.replacingOccurrences(of: "return 1", with: "return 2"))
        let twice = "x = 1\nfunc b() {\nx = 1\n}\n"
        let second = try CodexPatch.apply([CodexPatch.Chunk(context: "func b() {", oldLines: ["x = 1"], newLines: ["x = 2"], isEndOfFile: false)], to: twice)
        #expect(second == "x = 1\nfunc b() {\nx = 2\n}\n", "the occurrence after the @@ line")
    }

    @Test("a chunk whose lines are not in the file, or whose @@ line is not, is refused")
    func contextNotFound() {
        let ws = DiffWorkspace()
        ws.write("a.txt", "one\ntwo\n")
        let missingLines = ws.preview().preview(patch: Self.patch("*** Update File: a.txt\n@@\n-three\n+3\n"))
        #expect(missingLines.first?.error == "hunk 1 does not match the file as it is now: its 1 expected line(s) ('three' …) are not in the file")
        let missingContext = ws.preview().preview(patch: Self.patch("*** Update File: a.txt\n@@ class Gone\n-one\n+1\n"))
        #expect(missingContext.first?.error == "hunk 1 does not match the file as it is now: its @@ line 'class Gone' is not in the file")
        let missingFile = ws.preview().preview(patch: Self.patch("*** Update File: nope.txt\n@@\n-a\n+b\n"))
        #expect(missingFile.first?.error == "'nope.txt' does not exist")
        #expect(ws.preview().preview(patch: Self.patch("*** Delete File: nope.txt\n")).first?.error == "'nope.txt' does not exist")
    }

    @Test("whitespace differences are tolerated as Codex tolerates them, and the result always ends with a newline")
    func toleratesWhitespace() throws {
        let chunk = CodexPatch.Chunk(context: nil, oldLines: ["a", "b"], newLines: ["a", "c"], isEndOfFile: false)
        #expect(try CodexPatch.apply([chunk], to: "a   \nb\t\nz") == "a\nc\nz\n")
        #expect(try CodexPatch.apply([chunk], to: "   a\n  b\n") == "a\nc\n")
        #expect(throws: DiffError.self) { try CodexPatch.apply([chunk], to: "a\nx\nb\n") }
    }

    @Test("an End of File chunk matches the end of the file first, and additions without context go at the end")
    func endOfFileAndAdditions() throws {
        let text = "x\ny\nx\ny\n"
        let atEnd = CodexPatch.Chunk(context: nil, oldLines: ["x", "y"], newLines: ["x", "Y"], isEndOfFile: true)
        #expect(try CodexPatch.apply([atEnd], to: text) == "x\ny\nx\nY\n")
        var first = atEnd
        first.isEndOfFile = false
        #expect(try CodexPatch.apply([first], to: text) == "x\nY\nx\ny\n")
        let addition = CodexPatch.Chunk(context: nil, oldLines: [], newLines: ["appended"], isEndOfFile: false)
        #expect(try CodexPatch.apply([addition], to: "a\nb") == "a\nb\nappended\n")
    }

    @Test("a moved file shows the diff from its old path to its new one; two operations on one file build on each other")
    func moveAndSequence() {
        let ws = DiffWorkspace()
        ws.write("src/app.py", "a\nb\n")
        let moved = ws.preview().preview(patch: Self.patch("*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n a\n-b\n+c\n"))
        #expect(moved.first?.kind == .move)
        #expect(moved.first?.movePath == "src/main.py")
        #expect(moved.first?.diff == "--- a/src/app.py\n+++ b/src/main.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
        let both = ws.preview().preview(patch: Self.patch("*** Update File: src/app.py\n@@\n-a\n+A\n*** Update File: src/app.py\n@@\n-A\n+AA\n"))
        #expect(both.map(\.error) == [nil, nil])
        #expect(both[1].diff.contains("-A\n+AA\n"))
        let outside = ws.preview().preview(patch: Self.patch("*** Update File: src/app.py\n*** Move to: /etc/app.py\n@@\n-a\n+A\n"))
        #expect(outside.first?.error == "'/etc/app.py' is outside the workspace roots")
    }

    @Test("the patch is found in the apply_patch tool's input, an object holding it, or a shell command running apply_patch")
    func toolInputs() {
        let ws = DiffWorkspace()
        ws.write("a.txt", "one\n")
        let patch = Self.patch("*** Update File: a.txt\n@@\n-one\n+1\n")
        let expected = "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-one\n+1\n"
        let inputs: [(String, JSONValue)] = [
            ("apply_patch", .string(patch)),
            ("apply_patch", ["input": .string(patch)]),
            ("shell", ["command": ["apply_patch", .string(patch)]]),
            ("shell", ["command": ["bash", "-lc", .string("apply_patch <<'EOF'\n" + patch + "EOF\n")]]),
        ]
        for (tool, input) in inputs {
            #expect(ws.preview().preview(tool: tool, input: input).map(\.diff) == [expected], "\(tool) \(input)")
        }
        #expect(ws.preview().preview(tool: "shell", input: ["command": ["bash", "-lc", .string("cat <<'EOF'\n" + patch + "EOF\n")]]).isEmpty)
        #expect(ws.preview().preview(tool: "shell", input: ["command": ["ls"]]).isEmpty)
    }

    @Test("a Codex approval's changes map is shown against the files as they are now")
    func changesMap() {
        let ws = DiffWorkspace()
        ws.write("a.txt", "zero\none\ntwo\n")
        ws.write("gone.txt", "bye\n")
        let changes: JSONValue = [
            "changes": [
                "a.txt": ["update": ["unified_diff": "@@ -1,2 +1,2 @@\n one\n-two\n+2\n", "move_path": nil]],
                "new.txt": ["add": ["content": "fresh\n"]],
                "gone.txt": ["type": "delete", "content": "bye\n"],
            ],
        ]
        let diffs = ws.preview().preview(tool: "apply_patch_approval_request", input: changes)
        #expect(diffs.map(\.kind) == [.update, .add, .delete])
        #expect(diffs.map(\.error) == [nil, nil, nil])
        #expect(diffs[0].diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n zero\n one\n-two\n+2\n")
    }

    @Test("a codex app-server fileChange item's changes list (what ralph-mobile's apply_patch input holds) is shown against the files now")
    func itemChangesList() {
        let ws = DiffWorkspace()
        let a = ws.write("a.txt", "line one\nline two\nline three\n")
        let gone = ws.write("gone.txt", "bye\n")
        let input: JSONValue = [
            "paths": [.string(a), .string(ws.cwd + "/new.txt"), .string(gone)],
            "changes": [
                ["path": .string(a), "kind": "update", "diff": "@@ -1,3 +1,3 @@\n line one\n-line two\n+line 2 (edited)\n line three\n"],
                ["path": .string(ws.cwd + "/new.txt"), "kind": "add", "diff": "hello\nworld\n"],
                ["path": .string(gone), "kind": "delete", "diff": "bye\n"],
            ],
        ]
        let diffs = ws.preview().preview(tool: "apply_patch", input: input)
        #expect(diffs.map(\.kind) == [.update, .add, .delete] && diffs.map(\.error) == [nil, nil, nil], "\(diffs)")
        #expect(diffs.first?.diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n line one\n-line two\n+line 2 (edited)\n line three\n")
        #expect(diffs[1].added == 2 && diffs[2].removed == 1)
        // The file changed on disk since Codex computed its hunk: shown against what is there, or refused when the
        // hunk no longer fits.
        ws.write("a.txt", "header\nline one\nline two\nline three\n")
        #expect(ws.preview().preview(tool: "apply_patch", input: input).first?.diff.hasSuffix("@@ -1,4 +1,4 @@\n header\n line one\n-line two\n+line 2 (edited)\n line three\n") == true)
        ws.write("a.txt", "something else\n")
        #expect(ws.preview().preview(tool: "apply_patch", input: input).first?.error != nil)
    }
}
