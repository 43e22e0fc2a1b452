import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Library: tasks.jsonl")
struct LibraryTaskStoreTests {
    // MARK: - Loading

    @Test("load reads every status in file order, ignoring unknown fields and lines that are not tasks")
    func loadFixture() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.text)
        let tasks = try w.store.load()
        try #require(tasks.count == 4)
        #expect(tasks.map(\.id) == ["task-1769046733-f668", "task-1769046800-0001", "task-1769046900-00ff", "task-1769047000-abcd"])
        #expect(tasks.map(\.status) == ["closed", "open", "in_progress", "failed"])

        #expect(tasks[0] == TaskItem(
            id: "task-1769046733-f668", title: "Create greeter CLI example in examples/greeter.rs", description: nil, status: "closed", priority: 2,
            blockedBy: [], loopId: nil, createdAt: "2026-01-22T01:52:13.390766+00:00", updatedAt: "2026-01-22T01:52:48.891656+00:00"
        ))
        #expect(tasks[1] == TaskItem(
            id: "task-1769046800-0001", title: "Open one", description: "Line one\nline \"two\" ✓", status: "open", priority: 1,
            blockedBy: ["task-1769046733-f668"], loopId: "primary-20260205-083922", createdAt: "2026-01-22T01:53:20.000001+00:00", updatedAt: nil,
            key: "k-1"
        ))
        #expect(tasks[2].updatedAt == nil)
        #expect(tasks[3].blockedBy == ["task-1769046900-00ff", "task-1769046733-f668"])
        #expect(tasks[3].updatedAt == "2026-01-22T02:00:00.000000+00:00")
    }

    @Test("a missing file has no tasks, and neither has an empty one")
    func loadMissingAndEmpty() throws {
        let w = libraryTaskWorkspace()
        #expect(try w.store.load().isEmpty)
        #expect(FileSystem.status(w.store.path) == nil)

        w.tmp.file(".ralph/agent/tasks.jsonl", "")
        #expect(try w.store.load().isEmpty)
        w.tmp.file(".ralph/agent/tasks.jsonl", "\n\n")
        #expect(try w.store.load().isEmpty)
    }

    @Test(
        "load of a workspace without .ralph creates nothing"
    )
    func loadCreatesNothing() throws {
        let w = libraryTaskWorkspace()
        #expect(try w.store.load().isEmpty)
        #expect(FileSystem.status(w.tmp.path + "/.ralph") == nil)
    }

    @Test("the store's files are ralph's: .ralph/agent/tasks.jsonl and the sidecar tasks.jsonl.lock")
    func paths() {
        let store = TaskStore(workspace: "/repo", root: RootDirectory(path: "/repo"))
        #expect(store.path == "/repo/.ralph/agent/tasks.jsonl")
        #expect(store.lockPath == "/repo/.ralph/agent/tasks.jsonl.lock")
    }

    @Test("a task line without a trailing newline is still read and gets one on the next write")
    func missingFinalNewline() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.closed)
        #expect(try w.store.load().count == 1)
        _ = try w.store.addTask("second")
        let lines = fileLines(w.store.path)
        #expect(lines.count == 3)
        #expect(lines[0] == LibraryTaskFixture.closed)
        #expect(lines[2] == "")
    }

    @Test(
        "a CRLF tasks.jsonl is read line by line, as ralph's BufRead::lines reads it"
    )
    func loadCRLF() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.lines.joined(separator: "\r\n") + "\r\n")
        #expect(try w.store.load().map(\.id) == ["task-1769046733-f668", "task-1769046800-0001", "task-1769046900-00ff", "task-1769047000-abcd"])
    }

    // MARK: - Order

    @Test("sorted puts priority 1 first, then the newest created first")
    func sortedOrder() {
        func item(_ id: String, _ priority: Int, _ created: String) -> TaskItem {
            TaskItem(id: id, title: id, description: nil, status: "open", priority: priority, blockedBy: [], loopId: nil, createdAt: created, updatedAt: nil)
        }
        let tasks = [
            item("a", 3, "2026-01-22T01:00:00.000000+00:00"),
            item("b", 1, "2026-01-22T01:00:00.000000+00:00"),
            item("c", 3, "2026-01-22T03:00:00.000000+00:00"),
            item("d", 5, "2026-01-23T00:00:00.000000+00:00"),
            item("e", 1, "2026-01-22T02:00:00.000000+00:00"),
            item("f", 3, "2026-01-22T02:00:00.000000+00:00"),
        ]
        #expect(TaskStore.sorted(tasks).map(\.id) == ["e", "b", "c", "f", "a", "d"])
        #expect(TaskStore.sorted(tasks.reversed()).map(\.id) == ["e", "b", "c", "f", "a", "d"])
        #expect(TaskStore.sorted([]).isEmpty)
    }
}
