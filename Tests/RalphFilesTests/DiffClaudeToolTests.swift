import Foundation
import RalphAPI
import RalphFiles
import Testing

@Suite("Diff previews of Claude Code's Write, Edit and MultiEdit against the file on disk")
struct DiffClaudeToolTests {
    static func edit(_ path: String, _ old: String, _ new: String, all: Bool? = nil) -> JSONValue {
        var input: JSONValue = ["file_path": .string(path), "old_string": .string(old), "new_string": .string(new)]
        if let all, case .object(var object) = input {
            object["replace_all"] = .bool(all)
            input = .object(object)
        }
        return input
    }

    @Test("an Edit of an existing file shows one hunk against it, with the file named as the tool named it")
    func editExisting() {
        let ws = DiffWorkspace()
        let path = ws.write("src/app.swift", numberedLines(10))
        let diff = ws.diff("Edit", Self.edit(path, "5\n", "five\n"))
        #expect(diff.error == nil)
        #expect(diff.path == path)
        #expect(diff.kind == .update)
        #expect(diff.diff == "--- a/src/app.swift\n+++ b/src/app.swift\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n")
        #expect(diff.added == 1 && diff.removed == 1)
        #expect(ws.text("src/app.swift") == numberedLines(10), "a preview writes nothing")
    }

    @Test("a Write of a new file shows it whole as an add")
    func writeNew() {
        let ws = DiffWorkspace()
        let diff = ws.diff("Write", ["file_path": "notes/new.md", "content": "# Title\n\nbody"])
        #expect(diff.kind == .add)
        #expect(diff.diff == "--- /dev/null\n+++ b/notes/new.md\n@@ -0,0 +1,3 @@\n+# Title\n+\n+body\n\\ No newline at end of file\n")
        #expect(diff.added == 3 && diff.removed == 0)
        #expect(ws.text("notes/new.md") == nil)
    }

    @Test("a Write over an existing file shows what changes against it")
    func writeOverExisting() {
        let ws = DiffWorkspace()
        ws.write("a.txt", "keep\nold\nkeep too\n")
        let diff = ws.diff("Write", ["file_path": "a.txt", "content": "keep\nnew\nkeep too\n"])
        #expect(diff.kind == .update)
        #expect(diff.diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n keep\n-old\n+new\n keep too\n")
        let same = ws.diff("Write", ["file_path": "a.txt", "content": "keep\nold\nkeep too\n"])
        #expect(same.diff.isEmpty && same.error == nil && same.added == 0)
    }

    @Test("an Edit whose old_string is not in the file is refused, saying so")
    func editTextMissing() {
        let ws = DiffWorkspace()
        ws.write("a.txt", "alpha\nbeta\n")
        let diff = ws.diff("Edit", Self.edit("a.txt", "gamma", "delta"))
        #expect(diff.error == "the text to replace is not in the file as it is now")
        #expect(diff.diff.isEmpty)
    }

    @Test("an Edit whose old_string occurs twice is refused unless replace_all is set, which replaces both")
    func editNotUnique() {
        let ws = DiffWorkspace()
        ws.write("a.txt", "x = 1\ny = 2\nx = 1\n")
        let refused = ws.diff("Edit", Self.edit("a.txt", "x = 1", "x = 3"))
        #expect(refused.error == "the text to replace occurs 2 times in the file, and replace_all is not set")
        #expect(ws.diff("Edit", Self.edit("a.txt", "x = 1", "x = 3", all: false)).error == refused.error)
        let all = ws.diff("Edit", Self.edit("a.txt", "x = 1", "x = 3", all: true))
        #expect(all.error == nil)
        #expect(all.diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-x = 1\n+x = 3\n y = 2\n-x = 1\n+x = 3\n")
        let unique = ws.diff("Edit", Self.edit("a.txt", "y = 2", "y = 4"))
        #expect(unique.added == 1 && unique.removed == 1)
    }

    @Test("an Edit with an empty old_string creates a missing file and is refused on an existing one")
    func editCreates() {
        let ws = DiffWorkspace()
        let created = ws.diff("Edit", Self.edit("new.txt", "", "hello\n"))
        #expect(created.kind == .add)
        #expect(created.diff == "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hello\n")
        ws.write("old.txt", "content\n")
        #expect(ws.diff("Edit", Self.edit("old.txt", "", "hello\n")).error?.contains("already exists") == true)
        #expect(ws.diff("Edit", Self.edit("missing.txt", "a", "b")).error == "'missing.txt' does not exist")
        #expect(ws.diff("Edit", Self.edit("old.txt", "content", "content")).error == "old_string and new_string are the same")
    }

    @Test("a MultiEdit applies its edits in order, each to the result of the one before")
    func multiEdit() {
        let ws = DiffWorkspace()
        ws.write("m.txt", numberedLines(20))
        let input: JSONValue = [
            "file_path": "m.txt",
            "edits": [
                ["old_string": "\n2\n", "new_string": "\ntwo\n"],
                ["old_string": "two\n3\n", "new_string": "two\nthree\n"],
                ["old_string": "\n1", "new_string": "\nten-and-", "replace_all": true],
            ],
        ]
        let diff = ws.diff("MultiEdit", input)
        #expect(diff.error == nil)
        #expect(diff.removed == 12, "lines 2, 3 and 10…19: \(diff.diff)")
        #expect(diff.diff.contains("+two\n+three\n"))
        #expect(diff.diff.contains("-19\n") && diff.diff.contains("+ten-and-9\n"))
        #expect(!diff.diff.split(separator: "\n").contains("-1"), "the first line has no newline before it")
    }

    @Test("a MultiEdit whose middle edit fails names that edit, and shows no diff")
    func multiEditFailingMiddle() {
        let ws = DiffWorkspace()
        ws.write("m.txt", "a\nb\nc\n")
        let input: JSONValue = [
            "file_path": "m.txt",
            "edits": [["old_string": "a", "new_string": "A"], ["old_string": "a", "new_string": "again"], ["old_string": "c", "new_string": "C"]],
        ]
        let diff = ws.diff("MultiEdit", input)
        #expect(diff.error == "edit 2: the text to replace is not in the file as it is now")
        #expect(diff.diff.isEmpty)
    }

    @Test("a file changed on disk between two previews: the second diff is against what is there now")
    func changedBetweenPreviews() {
        let ws = DiffWorkspace()
        ws.write("c.txt", "one\ntwo\nthree\n")
        let input: JSONValue = ["file_path": "c.txt", "content": "one\n2\nthree\n"]
        let first = ws.diff("Write", input)
        #expect(first.diff.contains("-two\n+2\n"))
        ws.write("c.txt", "one\nTWO\nthree\nfour\n")
        let second = ws.diff("Write", input)
        #expect(second.diff == "--- a/c.txt\n+++ b/c.txt\n@@ -1,4 +1,3 @@\n one\n-TWO\n+2\n three\n-four\n")
        let edit = Self.edit("c.txt", "two", "deux")
        #expect(ws.diff("Edit", edit).error == "the text to replace is not in the file as it is now")
    }

    @Test("text is matched by its bytes: a decomposed é is not the precomposed one")
    func bytesNotEquivalence() {
        let ws = DiffWorkspace()
        ws.write("u.txt", "caf\u{E9}\n")
        #expect(ws.diff("Edit", Self.edit("u.txt", "cafe\u{301}", "tea")).error != nil)
        let rewritten = ws.diff("Write", ["file_path": "u.txt", "content": "cafe\u{301}\n"])
        #expect(rewritten.added == 1 && rewritten.removed == 1)
    }

    @Test("a tool that edits no file has no diff, and a file tool without file_path says so")
    func otherTools() {
        let ws = DiffWorkspace()
        #expect(ws.preview().preview(tool: "Bash", input: ["command": "ls"]).isEmpty)
        #expect(ws.preview().preview(tool: "Read", input: ["file_path": "a.txt"]).isEmpty)
        #expect(ws.diff("Write", ["content": "x"]).error == "the tool input has no file_path")
        #expect(ws.diff("Edit", ["file_path": "a.txt", "new_string": "x"]).error == "the tool input has no old_string")
    }
}
