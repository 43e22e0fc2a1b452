import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

@Suite("Global stream: session added, updated, removed")
struct GlobalStreamTests {
    @Test("a new client gets every session, then ready, then live changes")
    func snapshotThenChanges() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let existing = Fixture.run(in: root + "/a", name: "events-20260101-000000.jsonl", lines: [Fixture.emit("task.start", "existing")])
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }

        let client = try await SSETestClient.connect(server.base + "/api/events")
        let added = try await client.nextMessage()
        #expect(added.event == "session.added")
        #expect(added.json["id"] as? String == Fixture.id(existing))
        #expect(added.id == nil)
        let ready = try await client.nextMessage()
        #expect(ready.event == "ready")
        #expect(ready.json["sessions"] as? Int == 1)
        #expect(ready.json["resumed"] as? Bool == false)
        let readyID = try #require(ready.id)

        // A new run appears.
        let run = try LiveRun(workspace: root + "/b")
        let appeared = try await client.nextMessage()
        #expect(appeared.event == "session.added")
        #expect(appeared.json["id"] as? String == run.id)

        // It changes: events appended, then it ends.
        run.append(1)
        var sawIteration = false
        while !sawIteration {
            let m = try await client.nextMessage()
            #expect(m.event == "session.updated")
            sawIteration = m.json["iteration"] as? Int == 1 && m.json["event_count"] as? Int == 1
        }
        try run.end()
        var sawComplete = false
        while !sawComplete {
            let m = try await client.nextMessage()
            sawComplete = m.event == "session.updated" && m.json["id"] as? String == run.id && m.json["mode"] as? String == "complete"
        }

        // The existing run is deleted.
        try FileManager.default.removeItem(atPath: existing)
        var removed: SSEMessage?
        while removed == nil {
            let m = try await client.nextMessage()
            if m.event == "session.removed" { removed = m }
        }
        #expect(removed?.json["id"] as? String == Fixture.id(existing))

        // Reconnecting with the ready id replays what happened since, then ready again (resumed).
        let resumed = try await SSETestClient.connect(server.base + "/api/events", headers: [("Last-Event-ID", readyID)])
        var events: [String] = []
        while true {
            let m = try await resumed.nextMessage()
            if m.event == "ready" {
                #expect(m.json["resumed"] as? Bool == true)
                break
            }
            events.append(m.event)
        }
        #expect(events.first == "session.added")
        #expect(events.last == "session.removed")
        #expect(events.filter { $0 == "session.added" }.count == 1)

        // An id from another server process (or garbage) gets a fresh snapshot.
        let stale = try await SSETestClient.connect(server.base + "/api/events", headers: [("Last-Event-ID", "deadbeef-3")])
        let first = try await stale.nextMessage()
        #expect(first.event == "session.added" && first.json["id"] as? String == run.id)
    }
}
