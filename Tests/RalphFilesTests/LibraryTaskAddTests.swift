import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Library: tasks.jsonl, adding a task")
struct LibraryTaskAddTests {
    @Test("add writes exactly the line ralph writes: id, title, status, priority, blocked_by (even empty), created with +00:00")
    func addExactLine() throws {
        let w = libraryTaskWorkspace()
        let now = LibraryTaskFixture.addedAt
        let task = try w.store.addTask("  Write tests \n", priority: 2, now: now)

        let text = try #require(FileSystem.readText(w.store.path))
        #expect(text.hasSuffix("\n"))
        let lines = fileLines(w.store.path)
        #expect(lines.count == 2)
        #expect(lines[1] == "")
        let object = try jsonObject(lines[0])
        let created = try #require(object["created"]?.stringValue)
        #expect(matchesRegex(created, #"^2026-01-22T01:52:13\.5[0-9]{0,8}\+00:00$"#), "\(created)")
        #expect(lines[0] == #"{"id":"task-1769046733-a120","title":"Write tests","status":"open","priority":2,"blocked_by":[],"created":"\#(created)"}"#)

        #expect(task == TaskItem(
            id: "task-1769046733-a120", title: "Write tests", description: nil, status: "open", priority: 2, blockedBy: [], loopId: nil,
            createdAt: created, updatedAt: nil
        ))
        #expect(try w.store.load() == [task])
    }

    @Test("add writes description and loop_id in ralph's field order when given, and never repeats an id")
    func addWithOptionalFields() throws {
        let w = libraryTaskWorkspace()
        let now = LibraryTaskFixture.addedAt
        let first = try w.store.addTask("First", now: now)
        let second = try w.store.add(
            title: "Second", description: "With a \"quoted\"\nmulti-line description", priority: 1, blockedBy: [first.id],
            loopID: "primary-20260205-083922", now: now
        )

        #expect(second.id != first.id)
        #expect(matchesRegex(second.id, #"^task-17690467(33|34)-[0-9a-f]{4}$"#), "\(second.id)")
        let lines = fileLines(w.store.path).filter { !$0.isEmpty }
        #expect(lines.count == 2)
        let object = try jsonObject(lines[1])
        #expect(object.keys == ["id", "title", "description", "status", "priority", "blocked_by", "loop_id", "created"])
        #expect(object["description"] == .string("With a \"quoted\"\nmulti-line description"))
        #expect(object["blocked_by"] == .array([.string(first.id)]))
        #expect(object["loop_id"] == .string("primary-20260205-083922"))
        #expect(object["priority"] == .int(1))
        // One JSON object per line: the newline in the description is escaped.
        #expect(lines[1].contains(#"multi-line"#))
        #expect(!lines[1].contains("\n"))

        #expect(second.description == "With a \"quoted\"\nmulti-line description")
        #expect(second.loopId == "primary-20260205-083922")
        #expect(second.blockedBy == [first.id])
        #expect(try w.store.load().map(\.id) == [first.id, second.id])
    }

    @Test("an empty description is left out")
    func addEmptyDescription() throws {
        let w = libraryTaskWorkspace()
        _ = try w.store.add(title: "T", description: "", priority: 3, blockedBy: [], loopID: nil)
        let object = try jsonObject(try #require(fileLines(w.store.path).first))
        #expect(object["description"] == nil)
        #expect(object.keys == ["id", "title", "status", "priority", "blocked_by", "created"])
    }

    @Test("ids are task-<unix seconds>-<4 hex of the microseconds mod 65536>")
    func idFormat() throws {
        let w = libraryTaskWorkspace()
        let task = try w.store.addTask("Now")
        #expect(matchesRegex(task.id, #"^task-[0-9]{10}-[0-9a-f]{4}$"#), "\(task.id)")
        let seconds = try #require(Int(task.id.split(separator: "-")[1]))
        #expect(abs(Double(seconds) - Date().timeIntervalSince1970) < 60)
        #expect(TaskStore.newID(now: Date(timeIntervalSince1970: 1_769_046_733.5)) == "task-1769046733-a120")
        #expect(TaskStore.newID(now: Date(timeIntervalSince1970: 1_769_046_733)) == "task-1769046733-0000")
        #expect(TaskStore.newID(now: Date(timeIntervalSince1970: 1_769_046_733.25)) == "task-1769046733-d090")  // 250000 mod 65536 = 53392
    }

    @Test("add refuses a blank title and a priority outside 1...5, writing nothing")
    func addValidation() {
        let w = libraryTaskWorkspace()
        #expect(throws: TaskStore.StoreError.invalid("title cannot be empty")) {
            try w.store.addTask("")
        }
        #expect(throws: TaskStore.StoreError.invalid("title cannot be empty")) {
            try w.store.add(title: " \n\t ", description: "d", priority: 3, blockedBy: [], loopID: nil)
        }
        for priority in [0, 6, -1, 256] {
            #expect(throws: TaskStore.StoreError.invalid("priority must be between 1 and 5")) {
                try w.store.addTask("ok", priority: priority)
            }
        }
        #expect(TaskStore.StoreError.invalid("title cannot be empty").description == "title cannot be empty")
        #expect(FileSystem.status(w.store.path) == nil)
    }

    @Test("priorities 1 and 5 are accepted")
    func addPriorityBounds() throws {
        let w = libraryTaskWorkspace()
        #expect(try w.store.addTask("high", priority: 1).priority == 1)
        #expect(try w.store.addTask("low", priority: 5).priority == 5)
        #expect(try w.store.load().map(\.priority) == [1, 5])
    }
}
