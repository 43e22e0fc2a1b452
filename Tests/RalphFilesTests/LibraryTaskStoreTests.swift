import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

/// Lines of a tasks.jsonl as ralph writes them (compact serde_json, fields in struct order), plus lines that are not
/// tasks ralph-mobile knows how to read.
private enum LibraryTaskFixture {
    static let closed = #"{"id":"task-1769046733-f668","title":"Create greeter CLI example in examples/greeter.rs","status":"closed","priority":2,"blocked_by":[],"created":"2026-01-22T01:52:13.390766+00:00","closed":"2026-01-22T01:52:48.891656+00:00"}"#
    static let open = #"{"id":"task-1769046800-0001","title":"Open one","description":"Line one\nline \"two\" ✓","key":"k-1","status":"open","priority":1,"blocked_by":["task-1769046733-f668"],"loop_id":"primary-20260205-083922","created":"2026-01-22T01:53:20.000001+00:00","future_field":{"nested":[1,2.5,null,true,"x/y"]},"labels":["é","日本"],"score":0.1}"#
    static let malformed = #"this is not json {"id":"task-x"}"#
    static let inProgress = #"{"id":"task-1769046900-00ff","title":"Working","status":"in_progress","priority":3,"blocked_by":[],"created":"2026-01-22T01:55:00.500000+00:00","started":"2026-01-22T01:56:00.000000+00:00"}"#
    static let failed = #"{"id":"task-1769047000-abcd","title":"Broke","status":"failed","priority":5,"blocked_by":["task-1769046900-00ff","task-1769046733-f668"],"created":"2026-01-22T01:56:40.000000+00:00","closed":"2026-01-22T02:00:00.000000+00:00"}"#
    static let noID = #"{"title":"an object without an id","status":"open"}"#
    static let noTitle = #"{"id":"task-1769047100-0002","status":"open","priority":3,"blocked_by":[],"created":"2026-01-22T01:58:20.000000+00:00"}"#
    static let truncated = #"{"id":"task-1769047200-0003","title":"cut off by a crash","sta"#

    static let lines = [closed, open, malformed, inProgress, failed, noID, noTitle, truncated]
    static var text: String { lines.joined(separator: "\n") + "\n" }
}

/// A temporary workspace and its store; keep the value alive for the whole test (the directory goes with it).
private struct LibraryTaskWorkspace {
    let tmp = TempDir()
    var store: TaskStore { TaskStore(workspace: tmp.path, root: RootDirectory(path: tmp.path)) }
}

private func libraryTaskWorkspace(_ text: String? = nil) -> LibraryTaskWorkspace {
    let w = LibraryTaskWorkspace()
    if let text { w.tmp.file(".ralph/agent/tasks.jsonl", text) }
    return w
}

private func fileLines(_ path: String) -> [String] {
    let text = FileSystem.readText(path, limit: 64 << 20) ?? ""
    return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

private func jsonObject(_ line: String) throws -> JSONObject {
    guard case .object(let object) = try JSONParser.parse(line) else { throw LibraryTaskTestError(what: "not an object: \(line)") }
    return object
}

private struct LibraryTaskTestError: Error, CustomStringConvertible {
    let what: String
    var description: String { what }
}

private func matches(_ text: String, _ pattern: String) -> Bool {
    text.range(of: pattern, options: .regularExpression) != nil
}

@Suite("Library: tasks.jsonl")
struct LibraryTaskStoreTests {
    // MARK: - Loading

    @Test("load reads every status in file order, ignoring unknown fields and lines that are not tasks")
    func loadFixture() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.text)
        let store = w.store
        let tasks = try store.load()
        try #require(tasks.count == 4)
        #expect(tasks.map(\.id) == ["task-1769046733-f668", "task-1769046800-0001", "task-1769046900-00ff", "task-1769047000-abcd"])
        #expect(tasks.map(\.status) == ["closed", "open", "in_progress", "failed"])

        #expect(tasks[0] == TaskItem(
            id: "task-1769046733-f668", title: "Create greeter CLI example in examples/greeter.rs", description: nil, status: "closed", priority: 2,
            blockedBy: [], loopId: nil, createdAt: "2026-01-22T01:52:13.390766+00:00", updatedAt: "2026-01-22T01:52:48.891656+00:00"
        ))
        #expect(tasks[1] == TaskItem(
            id: "task-1769046800-0001", title: "Open one", description: "Line one\nline \"two\" ✓", status: "open", priority: 1,
            blockedBy: ["task-1769046733-f668"], loopId: "primary-20260205-083922", createdAt: "2026-01-22T01:53:20.000001+00:00", updatedAt: nil
        ))
        #expect(tasks[2].updatedAt == nil)
        #expect(tasks[3].blockedBy == ["task-1769046900-00ff", "task-1769046733-f668"])
        #expect(tasks[3].updatedAt == "2026-01-22T02:00:00.000000+00:00")
    }

    @Test("a missing file has no tasks, and neither has an empty one")
    func loadMissingAndEmpty() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        #expect(try store.load().isEmpty)
        #expect(FileSystem.status(store.path) == nil)

        w.tmp.file(".ralph/agent/tasks.jsonl", "")
        #expect(try store.load().isEmpty)
        w.tmp.file(".ralph/agent/tasks.jsonl", "\n\n")
        #expect(try store.load().isEmpty)
    }

    @Test(
        "load of a workspace without .ralph creates nothing"
    )
    func loadCreatesNothing() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        #expect(try store.load().isEmpty)
        #expect(FileSystem.status(w.tmp.path + "/.ralph") == nil)
    }

    @Test("the store's files are ralph's: .ralph/agent/tasks.jsonl and the sidecar tasks.jsonl.lock")
    func paths() {
        let store = TaskStore(workspace: "/repo", root: RootDirectory(path: "/repo"))
        #expect(store.path == "/repo/.ralph/agent/tasks.jsonl")
        #expect(store.lockPath == "/repo/.ralph/agent/tasks.jsonl.lock")
    }

    // MARK: - Adding

    @Test("add writes exactly the line ralph writes: id, title, status, priority, blocked_by (even empty), created with +00:00")
    func addExactLine() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        // 1769046733.5 s is exact in binary: 500000 µs, 500000 mod 65536 = 0xa120.
        let now = Date(timeIntervalSince1970: 1_769_046_733.5)
        let task = try store.add(title: "  Write tests \n", description: nil, priority: 2, blockedBy: [], loopID: nil, now: now)

        let text = try #require(FileSystem.readText(store.path))
        #expect(text.hasSuffix("\n"))
        let lines = fileLines(store.path)
        #expect(lines.count == 2)
        #expect(lines[1] == "")
        let object = try jsonObject(lines[0])
        let created = try #require(object["created"]?.stringValue)
        #expect(matches(created, #"^2026-01-22T01:52:13\.5[0-9]{0,8}\+00:00$"#), "\(created)")
        #expect(lines[0] == #"{"id":"task-1769046733-a120","title":"Write tests","status":"open","priority":2,"blocked_by":[],"created":"\#(created)"}"#)

        #expect(task == TaskItem(
            id: "task-1769046733-a120", title: "Write tests", description: nil, status: "open", priority: 2, blockedBy: [], loopId: nil,
            createdAt: created, updatedAt: nil
        ))
        #expect(try store.load() == [task])
    }

    @Test("add writes description and loop_id in ralph's field order when given, and never repeats an id")
    func addWithOptionalFields() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        let now = Date(timeIntervalSince1970: 1_769_046_733.5)
        let first = try store.add(title: "First", description: nil, priority: 3, blockedBy: [], loopID: nil, now: now)
        let second = try store.add(
            title: "Second", description: "With a \"quoted\"\nmulti-line description", priority: 1, blockedBy: [first.id],
            loopID: "primary-20260205-083922", now: now
        )

        #expect(second.id != first.id)
        #expect(matches(second.id, #"^task-17690467(33|34)-[0-9a-f]{4}$"#), "\(second.id)")
        let lines = fileLines(store.path).filter { !$0.isEmpty }
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
        #expect(try store.load().map(\.id) == [first.id, second.id])
    }

    @Test("an empty description is left out")
    func addEmptyDescription() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        _ = try store.add(title: "T", description: "", priority: 3, blockedBy: [], loopID: nil)
        let object = try jsonObject(try #require(fileLines(store.path).first))
        #expect(object["description"] == nil)
        #expect(object.keys == ["id", "title", "status", "priority", "blocked_by", "created"])
    }

    @Test("ids are task-<unix seconds>-<4 hex of the microseconds mod 65536>")
    func idFormat() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        let task = try store.add(title: "Now", description: nil, priority: 3, blockedBy: [], loopID: nil)
        #expect(matches(task.id, #"^task-[0-9]{10}-[0-9a-f]{4}$"#), "\(task.id)")
        let seconds = try #require(Int(task.id.split(separator: "-")[1]))
        #expect(abs(Double(seconds) - Date().timeIntervalSince1970) < 60)
        #expect(TaskStore.newID(now: Date(timeIntervalSince1970: 1_769_046_733.5)) == "task-1769046733-a120")
        #expect(TaskStore.newID(now: Date(timeIntervalSince1970: 1_769_046_733)) == "task-1769046733-0000")
        #expect(TaskStore.newID(now: Date(timeIntervalSince1970: 1_769_046_733.25)) == "task-1769046733-d090")  // 250000 mod 65536 = 53392
    }

    @Test("add refuses a blank title and a priority outside 1...5, writing nothing")
    func addValidation() {
        let w = libraryTaskWorkspace()
        let store = w.store
        #expect(throws: TaskStore.StoreError.invalid("title cannot be empty")) {
            try store.add(title: "", description: nil, priority: 3, blockedBy: [], loopID: nil)
        }
        #expect(throws: TaskStore.StoreError.invalid("title cannot be empty")) {
            try store.add(title: " \n\t ", description: "d", priority: 3, blockedBy: [], loopID: nil)
        }
        for priority in [0, 6, -1, 256] {
            #expect(throws: TaskStore.StoreError.invalid("priority must be between 1 and 5")) {
                try store.add(title: "ok", description: nil, priority: priority, blockedBy: [], loopID: nil)
            }
        }
        #expect(TaskStore.StoreError.invalid("title cannot be empty").description == "title cannot be empty")
        #expect(FileSystem.status(store.path) == nil)
    }

    @Test("priorities 1 and 5 are accepted")
    func addPriorityBounds() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        #expect(try store.add(title: "high", description: nil, priority: 1, blockedBy: [], loopID: nil).priority == 1)
        #expect(try store.add(title: "low", description: nil, priority: 5, blockedBy: [], loopID: nil).priority == 5)
        #expect(try store.load().map(\.priority) == [1, 5])
    }

    // MARK: - Status changes

    @Test("setStatus is case-insensitive; in_progress sets started once, closing sets closed, re-opening keeps closed, failing sets closed")
    func setStatusLifecycle() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        let created = Date(timeIntervalSince1970: 1_769_046_733.5)
        let task = try store.add(title: "Lifecycle", description: nil, priority: 3, blockedBy: [], loopID: nil, now: created)
        let t1 = Date(timeIntervalSince1970: 1_769_046_800)
        let t2 = Date(timeIntervalSince1970: 1_769_046_900)
        let t3 = Date(timeIntervalSince1970: 1_769_047_000)
        let t4 = Date(timeIntervalSince1970: 1_769_047_100)
        let t5 = Date(timeIntervalSince1970: 1_769_047_200)

        func onDisk() throws -> JSONObject { try jsonObject(try #require(fileLines(store.path).first)) }

        let started = try store.setStatus(id: task.id, status: "IN_PROGRESS", now: t1)
        #expect(started.status == "in_progress")
        #expect(started.updatedAt == nil)
        #expect(try onDisk()["status"] == .string("in_progress"))
        #expect(try onDisk()["started"] == .string(Timestamp.formatRalph(t1)))
        #expect(Timestamp.formatRalph(t1).hasPrefix("2026-01-22T01:53:20"))
        #expect(Timestamp.formatRalph(t1).hasSuffix("+00:00"))

        _ = try store.setStatus(id: task.id, status: "In_Progress", now: t2)
        #expect(try onDisk()["started"] == .string(Timestamp.formatRalph(t1)))

        let closed = try store.setStatus(id: task.id, status: "Closed", now: t3)
        #expect(closed.status == "closed")
        #expect(closed.updatedAt == Timestamp.formatRalph(t3))
        #expect(try onDisk()["closed"] == .string(Timestamp.formatRalph(t3)))
        #expect(try onDisk()["started"] == .string(Timestamp.formatRalph(t1)))

        let reopened = try store.setStatus(id: task.id, status: "open", now: t4)
        #expect(reopened.status == "open")
        #expect(reopened.updatedAt == Timestamp.formatRalph(t3))
        #expect(try onDisk()["closed"] == .string(Timestamp.formatRalph(t3)))

        let failed = try store.setStatus(id: task.id, status: "FAILED", now: t5)
        #expect(failed.status == "failed")
        #expect(failed.updatedAt == Timestamp.formatRalph(t5))
        #expect(try onDisk()["closed"] == .string(Timestamp.formatRalph(t5)))
        #expect(try onDisk()["created"] == .string(Timestamp.formatRalph(created)))
        #expect(try store.load().map(\.status) == ["failed"])
    }

    @Test("an in_progress then closed task keeps ralph's field order: created, started, closed")
    func setStatusFieldOrder() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        let task = try store.add(title: "Ordered", description: nil, priority: 3, blockedBy: [], loopID: nil)
        _ = try store.setStatus(id: task.id, status: "in_progress")
        _ = try store.setStatus(id: task.id, status: "closed")
        let object = try jsonObject(try #require(fileLines(store.path).first))
        #expect(object.keys == ["id", "title", "status", "priority", "blocked_by", "created", "started", "closed"])
    }

    @Test("an invalid status is refused with the list of the four statuses; an unknown id is notFound")
    func setStatusErrors() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.text)
        let store = w.store
        #expect(throws: TaskStore.StoreError.invalid("invalid status 'done', must be one of: open, in_progress, closed, failed")) {
            try store.setStatus(id: "task-1769046800-0001", status: "done")
        }
        #expect(throws: TaskStore.StoreError.invalid("invalid status '', must be one of: open, in_progress, closed, failed")) {
            try store.setStatus(id: "task-1769046800-0001", status: "")
        }
        #expect(throws: TaskStore.StoreError.notFound("task-nope")) {
            try store.setStatus(id: "task-nope", status: "closed")
        }
        #expect(TaskStore.StoreError.notFound("task-nope").description == "no task with id 'task-nope'")
        #expect(try store.load().map(\.status) == ["closed", "open", "in_progress", "failed"])
    }

    @Test("a rewrite keeps every other line byte for byte: unknown fields, malformed lines, objects without id or title")
    func rewritePreservesLines() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.text)
        let store = w.store
        let now = Date(timeIntervalSince1970: 1_769_050_000)
        _ = try store.setStatus(id: "task-1769046900-00ff", status: "closed", now: now)

        let lines = fileLines(store.path)
        #expect(lines.last == "")
        let written = Array(lines.dropLast())
        var expected = LibraryTaskFixture.lines
        expected[3] = String(LibraryTaskFixture.inProgress.dropLast()).replacingOccurrences(of: #""status":"in_progress""#, with: #""status":"closed""#)
            + #","closed":"\#(Timestamp.formatRalph(now))"}"#
        #expect(written == expected)

        // Changing the task with unknown fields keeps them, in place and unchanged.
        _ = try store.setStatus(id: "task-1769046800-0001", status: "in_progress", now: now)
        let changed = fileLines(store.path)[1]
        #expect(changed.hasPrefix(#"{"id":"task-1769046800-0001","title":"Open one","description":"Line one\nline \"two\" ✓","key":"k-1","status":"in_progress","priority":1,"blocked_by":["task-1769046733-f668"],"loop_id":"primary-20260205-083922","created":"2026-01-22T01:53:20.000001+00:00","future_field":{"nested":[1,2.5,null,true,"x/y"]},"labels":["é","日本"],"score":0.1"#))
        #expect(try jsonObject(changed)["started"] == .string(Timestamp.formatRalph(now)))

        // And an add appends after all of them.
        let added = try store.add(title: "new", description: nil, priority: 3, blockedBy: [], loopID: nil, now: now)
        let final = fileLines(store.path).filter { !$0.isEmpty }
        #expect(final.count == LibraryTaskFixture.lines.count + 1)
        #expect(final[2] == LibraryTaskFixture.malformed)
        #expect(final[5] == LibraryTaskFixture.noID)
        #expect(final[6] == LibraryTaskFixture.noTitle)
        #expect(final[7] == LibraryTaskFixture.truncated)
        #expect(try jsonObject(final[8])["id"] == .string(added.id))
    }

    @Test("a task line without a trailing newline is still read and gets one on the next write")
    func missingFinalNewline() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.closed)
        let store = w.store
        #expect(try store.load().count == 1)
        _ = try store.add(title: "second", description: nil, priority: 3, blockedBy: [], loopID: nil)
        let lines = fileLines(store.path)
        #expect(lines.count == 3)
        #expect(lines[0] == LibraryTaskFixture.closed)
        #expect(lines[2] == "")
    }

    @Test(
        "a CRLF tasks.jsonl is read line by line, as ralph's BufRead::lines reads it"
    )
    func loadCRLF() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.lines.joined(separator: "\r\n") + "\r\n")
        let store = w.store
        #expect(try store.load().map(\.id) == ["task-1769046733-f668", "task-1769046800-0001", "task-1769046900-00ff", "task-1769047000-abcd"])
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

    // MARK: - Concurrency with another process

    @Test("the store and another process doing read-modify-write under flock on tasks.jsonl.lock lose no update")
    func concurrentWithFlockProcess() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        let agent = w.tmp.dir(".ralph/agent")
        let count = 50

        let storeDone = DispatchSemaphore(value: 0)
        let storeErrors = LibraryTaskErrorBox()
        Thread.detachNewThread {
            for i in 0..<count {
                do {
                    _ = try store.add(title: "store \(i)", description: nil, priority: 3, blockedBy: [], loopID: nil)
                } catch {
                    storeErrors.append("\(error)")
                }
            }
            storeDone.signal()
        }

        var processFailures: [String] = []
        for i in 0..<count {
            let id = String(format: "task-1700000000-%04x", i)
            let line = #"{"id":"\#(id)","title":"process \#(i)","status":"open","priority":2,"blocked_by":[],"created":"2023-11-14T22:13:20.000000+00:00"}"#
            let script = "touch tasks.jsonl && cat tasks.jsonl > t.tmp.\(i) && echo '\(line)' >> t.tmp.\(i) && mv t.tmp.\(i) tasks.jsonl"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            process.arguments = [store.lockPath, "sh", "-c", script]
            process.currentDirectoryURL = URL(fileURLWithPath: agent)
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { processFailures.append("\(i): exit \(process.terminationStatus)") }
        }

        #expect(storeDone.wait(timeout: .now() + 60) == .success)
        #expect(processFailures.isEmpty)
        #expect(storeErrors.all.isEmpty)

        let tasks = try store.load()
        #expect(tasks.count == 2 * count)
        #expect(Set(tasks.map(\.id)).count == 2 * count)
        #expect(Set(tasks.map(\.title)) == Set((0..<count).map { "store \($0)" } + (0..<count).map { "process \($0)" }))
        // Nothing left behind by either writer.
        let leftovers = (FileSystem.list(agent) ?? []).filter { $0 != "tasks.jsonl" && $0 != "tasks.jsonl.lock" }
        #expect(leftovers.isEmpty, "\(leftovers)")
        withExtendedLifetime(w) {}
    }
}

private final class LibraryTaskErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []

    func append(_ error: String) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}
