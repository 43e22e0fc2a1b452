import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

private enum LibraryMemoryFixture {
    static let template = "# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n## Context\n"

    /// A memories.md as ralph writes it, with the odd cases a hand edit produces.
    static let lines = [
        "# Memories",
        "",
        "### mem-1737300000-0000",
        "> Written before any section",
        "<!-- tags: early | created: 2026-01-19 -->",
        "",
        "## Patterns",
        "",
        "### mem-1737372000-a1b2",
        "> Use flock for tasks.jsonl",
        "> and re-read under the lock",
        "<!-- tags: locking, files | created: 2026-01-20 -->",
        "",
        "### mem-1737372001-ffff",
        "> ",
        "> only after a blank quote line",
        "<!-- tags:  | created: 2026-01-20 -->",
        "",
        "## Decisions",
        "",
        "### mem-1737372002-0c0d",
        "> Decided: Swift 6 everywhere",
        "",
        "### mem-1737372003-dead",
        "> ",
        "<!-- tags: empty | created: 2026-01-20 -->",
        "",
        "### mem-bad-id1",
        "> content of an entry with a bad id",
        "",
        "### mem-1737372004-ABCD",
        "> uppercase hex is not an id",
        "",
        "### mem-1737372004-abc",
        "> three hex digits are not an id",
        "",
        "## Fixes",
        "",
        "### mem-1737372005-beef",
        "> line one",
        ">",
        "> line three with > inside",
        "<!-- tags: a,b , c | created: 2026-01-21 -->",
        "",
        "## Context",
        "",
        "### mem-1737372006-cafe",
        "> context entry",
        "<!-- tags: ctx | created: 2026-01-22 -->",
        "",
    ]

    static var text: String { lines.joined(separator: "\n") }

    static let expected = [
        MemoryEntry(id: "mem-1737300000-0000", type: "pattern", content: "Written before any section", tags: ["early"], created: "2026-01-19"),
        MemoryEntry(
            id: "mem-1737372000-a1b2", type: "pattern", content: "Use flock for tasks.jsonl\nand re-read under the lock", tags: ["locking", "files"],
            created: "2026-01-20"
        ),
        MemoryEntry(id: "mem-1737372001-ffff", type: "pattern", content: "only after a blank quote line", tags: [], created: "2026-01-20"),
        MemoryEntry(id: "mem-1737372002-0c0d", type: "decision", content: "Decided: Swift 6 everywhere", tags: [], created: nil),
        MemoryEntry(id: "mem-1737372005-beef", type: "fix", content: "line one\nline three with > inside", tags: ["a", "b", "c"], created: "2026-01-21"),
        MemoryEntry(id: "mem-1737372006-cafe", type: "context", content: "context entry", tags: ["ctx"], created: "2026-01-22"),
    ]
}

@Suite("Library: memories.md")
struct LibraryMemoryTests {
    @Test("parse finds every entry of a realistic file: sections, entries before any section, multi-line content, tags, dropped and invalid entries")
    func parseRealisticFile() {
        let entries = MemoryStore.parse(LibraryMemoryFixture.text)
        #expect(entries == LibraryMemoryFixture.expected)
    }

    @Test(
        "parse reads CRLF files the same way"
    )
    func parseCRLF() {
        #expect(MemoryStore.parse(LibraryMemoryFixture.lines.joined(separator: "\r\n")) == LibraryMemoryFixture.expected)
    }

    @Test("ralph's empty template and an empty file have no entries")
    func parseTemplate() {
        #expect(MemoryStore.parse(LibraryMemoryFixture.template).isEmpty)
        #expect(MemoryStore.parse("").isEmpty)
    }

    @Test("an entry ralph's memory tool writes is read back")
    func parseSingleEntry() {
        let text = LibraryMemoryFixture.template.replacingOccurrences(
            of: "## Fixes\n",
            with: "## Fixes\n\n### mem-1737372000-a1b2\n> line1\n> line2\n<!-- tags: a, b | created: 2026-01-20 -->\n"
        )
        #expect(MemoryStore.parse(text) == [
            MemoryEntry(id: "mem-1737372000-a1b2", type: "fix", content: "line1\nline2", tags: ["a", "b"], created: "2026-01-20")
        ])
    }

    @Test("section names are case-insensitive and an entry ends at the next section")
    func parseSectionBoundaries() {
        let text = "## DECISIONS\n### mem-1-0001\n> first\n## context\n> not part of the entry\n### mem-2-0002\n> second\n"
        #expect(MemoryStore.parse(text) == [
            MemoryEntry(id: "mem-1-0001", type: "decision", content: "first", tags: [], created: nil),
            MemoryEntry(id: "mem-2-0002", type: "context", content: "second", tags: [], created: nil),
        ])
    }

    @Test("memory ids are mem-<digits>-<4 lowercase hex>")
    func memoryIDs() {
        for id in ["mem-1737372000-a1b2", "mem-1-0000", "mem-1737372000-ffff"] {
            #expect(MemoryStore.isMemoryID(id), "\(id)")
        }
        for id in ["mem-1737372000-A1B2", "mem-1737372000-a1b", "mem-1737372000-a1b2c", "mem--a1b2", "mem-12x-a1b2", "mem-1737372000", "task-1-a1b2", "mem-1-a1b2-x", "mem-1-g000"] {
            #expect(!MemoryStore.isMemoryID(id), "\(id)")
        }
    }

    @Test("read of a missing file is nil and creates nothing")
    func readMissing() throws {
        let tmp = TempDir()
        let store = MemoryStore(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        #expect(store.path == tmp.path + "/.ralph/agent/memories.md")
        #expect(store.lockPath == tmp.path + "/.ralph/agent/memories.md.lock")
        #expect(try store.read() == nil)
        #expect(FileSystem.status(tmp.path + "/.ralph") == nil)
    }

    @Test("write creates the file and its directories; read returns the content and the modification time write returned")
    func writeThenRead() throws {
        let tmp = TempDir()
        let store = MemoryStore(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        let content = LibraryMemoryFixture.text
        let modified = try store.write(content)
        #expect(modified != nil)

        let read = try #require(try store.read())
        #expect(read.content == content)
        #expect(read.modified == modified)
        #expect(read.modified == FileSystem.status(store.path)?.modified)
        #expect(MemoryStore.parse(read.content) == LibraryMemoryFixture.expected)

        // A second write replaces the content.
        _ = try store.write(LibraryMemoryFixture.template)
        #expect(try store.read()?.content == LibraryMemoryFixture.template)
        #expect(FileSystem.readText(store.path) == LibraryMemoryFixture.template)
    }

    @Test("write keeps the file's permissions")
    func writeKeepsPermissions() throws {
        let tmp = TempDir()
        let path = tmp.file(".ralph/agent/memories.md", "old")
        chmod(path, 0o600)
        _ = try MemoryStore(workspace: tmp.path, root: RootDirectory(path: tmp.path)).write("new")
        #expect(FileSystem.status(path)?.mode == 0o600)
        #expect(FileSystem.readText(path) == "new")
    }

    @Test("write through a symlinked memories.md (a worktree's) updates the target and keeps the link")
    func writeThroughSymlink() throws {
        let tmp = TempDir()
        let main = tmp.file("repo/.ralph/agent/memories.md", LibraryMemoryFixture.template)
        let worktree = tmp.dir("repo/.worktrees/loop-1769046733-a3f2")
        tmp.dir("repo/.worktrees/loop-1769046733-a3f2/.ralph/agent")
        let link = worktree + "/.ralph/agent/memories.md"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../../../../.ralph/agent/memories.md")
        #expect(FileSystem.realPath(link) == main)

        let store = MemoryStore(workspace: worktree, root: RootDirectory(path: tmp.path))
        #expect(try store.read()?.content == LibraryMemoryFixture.template)

        let modified = try store.write("# Memories\n\n## Patterns\n\n### mem-1-0001\n> from the worktree\n")
        #expect(FileSystem.status(link, followSymlinks: false)?.isSymlink == true)
        #expect(FileSystem.realPath(link) == main)
        #expect(FileSystem.readText(main) == "# Memories\n\n## Patterns\n\n### mem-1-0001\n> from the worktree\n")
        #expect(modified == FileSystem.status(main)?.modified)
        #expect(try MemoryStore(workspace: tmp.path + "/repo", root: RootDirectory(path: tmp.path)).read()?.content == FileSystem.readText(main))
        // No stray temporary files next to the link or the target.
        #expect((FileSystem.list(worktree + "/.ralph/agent") ?? []).filter { $0.hasPrefix(".") }.isEmpty)
        #expect((FileSystem.list(tmp.path + "/repo/.ralph/agent") ?? []).filter { $0.hasPrefix(".") }.isEmpty)
    }
}
