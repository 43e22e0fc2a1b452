import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Library: tasks.jsonl, status changes and rewrites")
struct LibraryTaskStatusTests {
    @Test("setStatus is case-insensitive; in_progress sets started once, closing sets closed, re-opening keeps closed, failing sets closed")
    func setStatusLifecycle() throws {
        let w = libraryTaskWorkspace()
        let created = LibraryTaskFixture.addedAt
        let task = try w.store.addTask("Lifecycle", now: created)
        let t1 = Date(timeIntervalSince1970: 1_769_046_800)
        let t2 = Date(timeIntervalSince1970: 1_769_046_900)
        let t3 = Date(timeIntervalSince1970: 1_769_047_000)
        let t4 = Date(timeIntervalSince1970: 1_769_047_100)
        let t5 = Date(timeIntervalSince1970: 1_769_047_200)

        func onDisk() throws -> JSONObject { try jsonObject(try #require(fileLines(w.store.path).first)) }

        let started = try w.store.setStatus(id: task.id, status: "IN_PROGRESS", now: t1)
        #expect(started.status == "in_progress")
        #expect(started.updatedAt == nil)
        #expect(try onDisk()["status"] == .string("in_progress"))
        #expect(try onDisk()["started"] == .string(Timestamp.formatRalph(t1)))
        #expect(Timestamp.formatRalph(t1).hasPrefix("2026-01-22T01:53:20"))
        #expect(Timestamp.formatRalph(t1).hasSuffix("+00:00"))

        _ = try w.store.setStatus(id: task.id, status: "In_Progress", now: t2)
        #expect(try onDisk()["started"] == .string(Timestamp.formatRalph(t1)))

        let closed = try w.store.setStatus(id: task.id, status: "Closed", now: t3)
        #expect(closed.status == "closed")
        #expect(closed.updatedAt == Timestamp.formatRalph(t3))
        #expect(try onDisk()["closed"] == .string(Timestamp.formatRalph(t3)))
        #expect(try onDisk()["started"] == .string(Timestamp.formatRalph(t1)))

        let reopened = try w.store.setStatus(id: task.id, status: "open", now: t4)
        #expect(reopened.status == "open")
        #expect(reopened.updatedAt == Timestamp.formatRalph(t3))
        #expect(try onDisk()["closed"] == .string(Timestamp.formatRalph(t3)))

        let failed = try w.store.setStatus(id: task.id, status: "FAILED", now: t5)
        #expect(failed.status == "failed")
        #expect(failed.updatedAt == Timestamp.formatRalph(t5))
        #expect(try onDisk()["closed"] == .string(Timestamp.formatRalph(t5)))
        #expect(try onDisk()["created"] == .string(Timestamp.formatRalph(created)))
        #expect(try w.store.load().map(\.status) == ["failed"])
    }

    @Test("an in_progress then closed task keeps ralph's field order: created, started, closed")
    func setStatusFieldOrder() throws {
        let w = libraryTaskWorkspace()
        let task = try w.store.addTask("Ordered")
        _ = try w.store.setStatus(id: task.id, status: "in_progress")
        _ = try w.store.setStatus(id: task.id, status: "closed")
        let object = try jsonObject(try #require(fileLines(w.store.path).first))
        #expect(object.keys == ["id", "title", "status", "priority", "blocked_by", "created", "started", "closed"])
    }

    @Test("an invalid status is refused with the list of the four statuses; an unknown id is notFound")
    func setStatusErrors() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.text)
        #expect(throws: TaskStore.StoreError.invalid("invalid status 'done', must be one of: open, in_progress, closed, failed")) {
            try w.store.setStatus(id: "task-1769046800-0001", status: "done")
        }
        #expect(throws: TaskStore.StoreError.invalid("invalid status '', must be one of: open, in_progress, closed, failed")) {
            try w.store.setStatus(id: "task-1769046800-0001", status: "")
        }
        #expect(throws: TaskStore.StoreError.notFound("task-nope")) {
            try w.store.setStatus(id: "task-nope", status: "closed")
        }
        #expect(TaskStore.StoreError.notFound("task-nope").description == "no task with id 'task-nope'")
        #expect(try w.store.load().map(\.status) == ["closed", "open", "in_progress", "failed"])
    }

    @Test("a rewrite keeps every other line byte for byte: unknown fields, malformed lines, objects without id or title")
    func rewritePreservesLines() throws {
        let w = libraryTaskWorkspace(LibraryTaskFixture.text)
        let now = Date(timeIntervalSince1970: 1_769_050_000)
        _ = try w.store.setStatus(id: "task-1769046900-00ff", status: "closed", now: now)

        let lines = fileLines(w.store.path)
        #expect(lines.last == "")
        let written = Array(lines.dropLast())
        var expected = LibraryTaskFixture.lines
        expected[3] = String(LibraryTaskFixture.inProgress.dropLast()).replacingOccurrences(of: #""status":"in_progress""#, with: #""status":"closed""#)
            + #","closed":"\#(Timestamp.formatRalph(now))"}"#
        #expect(written == expected)

        // Changing the task with unknown fields keeps them, in place and unchanged.
        _ = try w.store.setStatus(id: "task-1769046800-0001", status: "in_progress", now: now)
        let changed = fileLines(w.store.path)[1]
        #expect(changed.hasPrefix(#"{"id":"task-1769046800-0001","title":"Open one","description":"Line one\nline \"two\" ✓","key":"k-1","status":"in_progress","priority":1,"blocked_by":["task-1769046733-f668"],"loop_id":"primary-20260205-083922","created":"2026-01-22T01:53:20.000001+00:00","future_field":{"nested":[1,2.5,null,true,"x/y"]},"labels":["é","日本"],"score":0.1"#))
        #expect(try jsonObject(changed)["started"] == .string(Timestamp.formatRalph(now)))

        // And an add appends after all of them.
        let added = try w.store.addTask("new", now: now)
        let final = fileLines(w.store.path).filter { !$0.isEmpty }
        #expect(final.count == LibraryTaskFixture.lines.count + 1)
        #expect(final[2] == LibraryTaskFixture.malformed)
        #expect(final[5] == LibraryTaskFixture.noID)
        #expect(final[6] == LibraryTaskFixture.noTitle)
        #expect(final[7] == LibraryTaskFixture.truncated)
        #expect(try jsonObject(final[8])["id"] == .string(added.id))
    }
}
