import Foundation
import RalphAPI
import RalphFiles
import Testing

@Suite("Diff previews: confined to the workspace roots, binary and large files, the diff that was applied")
struct DiffPreviewTests {
    @Test("an absolute path outside the roots is refused, and nothing there is read or written")
    func absoluteOutside() {
        let ws = DiffWorkspace()
        let secret = ws.outside.file("secret.txt", "SECRET\n")
        let before = ws.outside.contents()
        let diff = ws.diff("Write", ["file_path": .string(secret), "content": "x\n"])
        #expect(diff.error == "'\(secret)' is outside the workspace roots")
        #expect(diff.diff.isEmpty && !diff.diff.contains("SECRET"))
        #expect(ws.diff("Edit", ["file_path": "/etc/hostname", "old_string": "a", "new_string": "b"]).error?.hasSuffix("is outside the workspace roots") == true)
        #expect(ws.outside.contents() == before)
    }

    @Test("a ../ escape from the working directory is refused; a ../ that stays inside the root is not")
    func dotDotEscape() {
        let ws = DiffWorkspace()
        let escape = "../../" + (ws.outside.path as NSString).lastPathComponent + "/secret.txt"
        ws.outside.file("secret.txt", "SECRET\n")
        #expect(ws.diff("Write", ["file_path": .string(escape), "content": "x\n"]).error == "'\(escape)' is outside the workspace roots")
        ws.root.file("shared/notes.md", "a\n")
        let inside = ws.diff("Write", ["file_path": "../shared/notes.md", "content": "b\n"])
        #expect(inside.error == nil)
        let shown = ws.root.path.dropFirst() + "/shared/notes.md"
        #expect(inside.diff == "--- a/\(shown)\n+++ b/\(shown)\n@@ -1,1 +1,1 @@\n-a\n+b\n", "outside the cwd: shown by its absolute path")
    }

    @Test("a symbolic link in the root pointing outside is refused, for a file and for a directory on the way")
    func symlinkOutside() throws {
        let ws = DiffWorkspace()
        let secret = ws.outside.file("secret.txt", "SECRET\n")
        try FileManager.default.createSymbolicLink(atPath: ws.cwd + "/link.txt", withDestinationPath: secret)
        try FileManager.default.createSymbolicLink(atPath: ws.cwd + "/out", withDestinationPath: ws.outside.path)
        let before = ws.outside.contents()
        let edit = ws.diff("Edit", ["file_path": "link.txt", "old_string": "SECRET", "new_string": "x"])
        #expect(edit.error == "'link.txt' is outside the workspace roots")
        let write = ws.diff("Write", ["file_path": "out/new.txt", "content": "x\n"])
        #expect(write.error == "'out/new.txt' is outside the workspace roots")
        #expect(!edit.diff.contains("SECRET"))
        #expect(ws.outside.contents() == before)
        try FileManager.default.createSymbolicLink(atPath: ws.cwd + "/in.txt", withDestinationPath: ws.write("target.txt", "t\n"))
        #expect(ws.diff("Write", ["file_path": "in.txt", "content": "u\n"]).diff.hasSuffix("-t\n+u\n"), "a link inside the root is followed")
    }

    @Test("paths relative to the working directory are resolved against it, and bad paths are refused")
    func relativePaths() {
        let ws = DiffWorkspace()
        ws.write("deep/dir/file.txt", "a\n")
        let preview = ws.preview()
        #expect(preview.read("deep/dir/file.txt") == .success(.text("a\n")))
        #expect(preview.read("./deep/../deep/dir/file.txt") == .success(.text("a\n")))
        #expect(preview.read(ws.cwd + "/deep/dir/file.txt") == .success(.text("a\n")))
        #expect(preview.read("deep/dir/none.txt") == .success(.missing))
        #expect(preview.read("") == .failure(.invalidPath("")))
        #expect(preview.read("a\u{0}b") == .failure(.invalidPath("a\u{0}b")))
        #expect(preview.read("deep") == .failure(.unreadable("deep", reason: "it is not a regular file")))
        let elsewhere = DiffPreview(roots: [RootDirectory(path: ws.root.path)], cwd: ws.outside.path)
        #expect(elsewhere.read("x.txt") == .failure(.outsideRoots("x.txt")), "a cwd outside the roots confines nothing")
    }

    @Test("a binary file is named, not shown: a NUL byte near its start, or bytes that are not UTF-8")
    func binaryFiles() throws {
        let ws = DiffWorkspace()
        let png = ws.cwd + "/image.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0x01, 0x0A]).write(to: URL(fileURLWithPath: png))
        let overwrite = ws.diff("Write", ["file_path": "image.png", "content": "text\n"])
        #expect(overwrite.binary)
        #expect(overwrite.diff == "Binary file image.png changed\n")
        #expect(overwrite.added == 0 && overwrite.removed == 0)
        try Data([0x61, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: ws.cwd + "/latin.txt"))
        #expect(ws.diff("Edit", ["file_path": "latin.txt", "old_string": "a", "new_string": "b"]).binary)
        #expect(ws.preview().read("latin.txt") == .success(.binary(byteCount: 4)))
        #expect(ws.diff("Write", ["file_path": "nul.txt", "content": "a\u{0}b"]).binary, "content with a NUL is binary too")
        let late = String(repeating: "x", count: 9_000) + "\u{0}\n"
        ws.write("late.txt", late)
        #expect(ws.preview().read("late.txt") == .success(.text(late)), "a NUL past the first 8 KiB does not make it binary")
    }

    @Test("a file larger than the limit has no diff, and says how large the limit is")
    func tooLarge() {
        let ws = DiffWorkspace()
        ws.write("big.log", String(repeating: "line\n", count: 400))
        let small = ws.preview(limits: DiffPreview.Limits(maxFileBytes: 1024))
        let diff = small.preview(tool: "Write", input: ["file_path": "big.log", "content": "x\n"])
        #expect(diff.first?.error == "'big.log' is larger than 1 KiB: no diff is shown")
        let written = small.preview(tool: "Write", input: ["file_path": "new.log", "content": .string(String(repeating: "y\n", count: 600))])
        #expect(written.first?.error == "'new.log' is larger than 1 KiB: no diff is shown")
        #expect(DiffPreview.Limits().maxFileBytes == 8 << 20)
    }

    @Test("a huge rewrite is truncated with the count of lines left out")
    func hugeDiffTruncated() {
        let ws = DiffWorkspace()
        ws.write("gen.txt", (1...3_000).map { "old \($0)" }.joined(separator: "\n") + "\n")
        let diff = ws.diff("Write", ["file_path": "gen.txt", "content": .string((1...3_000).map { "new \($0)" }.joined(separator: "\n") + "\n")])
        #expect(diff.truncated)
        #expect(diff.added == 3_000 && diff.removed == 3_000)
        #expect(diff.omittedLines == 6_001 - 1_000)
        #expect(diff.note?.contains("too many changes") == true, "6 000 edits are past the search's limit")
        #expect(diff.diff.split(separator: "\n").count == 1_002)
    }

    @Test("the diff that was applied: the snapshot taken for the preview against the file read again afterwards")
    func appliedDiff() throws {
        let ws = DiffWorkspace()
        ws.write("a.txt", "one\ntwo\n")
        let preview = ws.preview()
        let change = try #require(preview.changes(tool: "Edit", input: ["file_path": "a.txt", "old_string": "two", "new_string": "2"]).first)
        #expect(change.before == .text("one\ntwo\n"))
        #expect(change.after == .text("one\n2\n"))
        #expect(change.absolutePath == ws.cwd + "/a.txt")
        ws.write("a.txt", "one\n2\nthree\n")
        let now = try preview.read(change.absolutePath!).get()
        let applied = preview.diff(path: "a.txt", before: change.before!, after: now)
        #expect(applied.diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n one\n-two\n+2\n+three\n")
        #expect(preview.diff(path: "a.txt", before: .text("x\n"), after: .missing).kind == .delete)
        #expect(preview.diff(path: "b.txt", before: .missing, after: .text("x\n")).kind == .add)
        #expect(preview.diff(path: "b.txt", movePath: "c.txt", before: .text("x\n"), after: .text("x\n")).diff == "--- a/b.txt\n+++ b/c.txt\n")
    }

    @Test("a file diff is encoded with snake_case keys and decodes back")
    func wireShape() throws {
        let diff = FileDiff(path: "a.txt", movePath: "b.txt", kind: .move, diff: "--- a/a.txt\n", added: 1, removed: 2, truncated: true, omittedLines: 3)
        let json = try #require(String(data: try WireJSON.encode(diff), encoding: .utf8))
        #expect(json.contains("\"move_path\":\"b.txt\"") && json.contains("\"omitted_lines\":3") && json.contains("\"kind\":\"move\""))
        #expect(!json.contains("\"error\""), "nil fields are left out")
        #expect(try WireJSON.decode(FileDiff.self, from: Data(json.utf8)) == diff)
        let future = #"{"path":"x","kind":"copy","diff":"","added":0,"removed":0,"binary":false,"truncated":false}"#
        #expect(try WireJSON.decode(FileDiff.self, from: Data(future.utf8)).kind.rawValue == "copy", "kinds are an open set")
    }
}
