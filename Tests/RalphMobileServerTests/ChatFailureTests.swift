import Foundation
import GRDB
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Failures of the chat database that used to be hidden, made visible: a step that cannot be stored, a conversation
/// that cannot be recovered after a restart, a stored auto-reply loop that cannot be read. The database is broken for
/// real (a trigger that aborts, a row with a value no code writes), through a second SQLite connection.
@Suite("Chat when the database fails", .serialized)
struct ChatFailureTests {
    static func database(_ f: ChatFixture) throws -> DatabaseQueue {
        try DatabaseQueue(path: f.data + "/chat.sqlite")
    }

    static func error(_ result: HTTPResult) -> String {
        ((result.object as? [String: Any])?["error"] as? String) ?? result.text
    }

    @Test("a step that cannot be stored stops the conversation: the request fails, its streams end saying so, later input is refused")
    func commitFailureStopsTheConversation() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation(firstTurn: "first")
        let db = try Self.database(f)
        try await db.write { db in
            try db.execute(sql: "CREATE TRIGGER broken BEFORE INSERT ON conversation_events BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        }

        let failed = try await f.request(.POST, "/api/conversations/\(c.id)/messages", f.json(SendMessageRequest(text: "second")))
        #expect(failed.status == 500)
        #expect(Self.error(failed).contains("could not be stored") && Self.error(failed).contains("disk on fire"), "\(Self.error(failed))")

        let said = try #require(try await stream.messages(until: "error").last)
        #expect(said.id == nil, "not stored, so it takes no place in the sequence a client resumes from")
        #expect(said.json["recoverable"] as? Bool == false)
        #expect((said.json["message"] as? String)?.contains("restart the server") == true)

        let reconnect = try await f.request(.GET, "/api/conversations/\(c.id)/events")
        #expect(reconnect.status == 500, "a stream opened again is refused with the reason, not left silent")
        #expect(Self.error(reconnect).contains("stopped"), "\(Self.error(reconnect))")
        let refused = try await f.request(.POST, "/api/conversations/\(c.id)/messages", f.json(SendMessageRequest(text: "third")))
        #expect(refused.status == 500)
        #expect(Self.error(refused).contains("stopped"), "\(Self.error(refused))")
        let interrupt = try await f.request(.POST, "/api/conversations/\(c.id)/interrupt")
        #expect(interrupt.status == 500, "every input is refused, not only messages")

        // Once the database works again, a restart settles the conversation from what was stored, and it goes on.
        try await db.write { db in try db.execute(sql: "DROP TRIGGER broken") }
        await f.server.stop()
        let server = try await f.restarted()
        defer { Task { await server.stop() } }
        let head = try await f.request(.GET, "/api/conversations/\(c.id)/messages", base: server.base).json(Page<ChatMessage>.self).lastEventId
        let resumed = try await f.events(c.id, after: head ?? 0, base: server.base)
        try await f.send(c.id, "after the restart", base: server.base)
        let after = try await resumed.messages(until: "complete")
        #expect(text(of: after) == "Echo: after the restart")
    }

    @Test("a conversation that cannot be recovered after a restart refuses with the reason; the others work; health says degraded")
    func unrecoverableConversation() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let broken = try await f.create(title: "broken")
        let fine = try await f.create(title: "fine")
        await f.server.stop()
        try await Self.database(f).write { db in
            // A running turn with a value no server writes: reading it back fails.
            try db.execute(
                sql: """
                    INSERT INTO turns (id, conversation_id, text, state, created_at, origin)
                    VALUES ('t_bad', ?, 'hello', 'running', '2027-01-15T08:00:00.000Z', 'martian')
                    """, arguments: [broken.id])
        }
        let server = try await f.restarted()
        defer { Task { await server.stop() } }

        // A request waits until recovery is over (it runs in the background after the start), then is refused.
        let send = try await f.request(.POST, "/api/conversations/\(broken.id)/messages", f.json(SendMessageRequest(text: "hi")), base: server.base)
        #expect(send.status == 503)
        #expect(Self.error(send).contains("could not be recovered"), "\(Self.error(send))")
        let health = try await f.request(.GET, "/api/health", base: server.base).json(HealthResponse.self)
        #expect(health.status == "degraded")
        let events = try await f.request(.GET, "/api/conversations/\(broken.id)/events", base: server.base)
        #expect(events.status == 503, "its stream would never carry a live event: it says why instead of pretending")

        let stream = try await f.events(fine.id, base: server.base)
        try await f.send(fine.id, "hello", base: server.base)
        #expect(text(of: try await stream.messages(until: "complete")) == "Echo: hello")
    }

    @Test("a stored auto-reply loop that cannot be read is reset with a notice on the conversation, not silently")
    func unreadableLoop() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let put = try await f.request(.PUT, "/api/conversations/\(c.id)/auto-reply", #"{"max_iterations": 7}"#)
        #expect(put.status == 200)
        await f.server.stop()
        try await Self.database(f).write { db in
            try db.execute(sql: "UPDATE auto_reply SET loop = '{\"state\": \"sideways\"}' WHERE conversation_id = ?", arguments: [c.id])
        }
        let server = try await f.restarted()
        defer { Task { await server.stop() } }

        let stream = try await f.events(c.id, base: server.base)
        let notice = try #require(try await stream.messages(until: "error").last)
        let message = try #require(notice.json["message"] as? String)
        #expect(message.contains("auto-reply") && message.contains("could not be read") && message.contains("its stored settings"), "\(message)")
        #expect(notice.id != nil, "stored: a phone that was away sees it too")
        let status = try await f.request(.GET, "/api/conversations/\(c.id)/auto-reply", base: server.base).json(AutoReplyStatus.self)
        #expect(status.progress.state == .stopped)
        #expect(status.settings.maxIterations == 7, "the settings that could be read are kept")
    }

    @Test("a conversation whose pending approvals cannot be read is not deleted half-way: the delete fails and says why")
    func deleteWithUnreadableApprovals() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let c = try await f.create()
        try await Self.database(f).write { db in
            try db.execute(
                sql: """
                    INSERT INTO approvals (id, conversation_id, turn_id, tool_name, input, suggestions, state, decision, created_at)
                    VALUES ('a_bad', ?, 't_1', 'Bash', '{}', '[]', 'pending', 'maybe', '2027-01-15T08:00:00.000Z')
                    """, arguments: [c.id])
        }
        let delete = try await f.request(.DELETE, "/api/conversations/\(c.id)")
        #expect(delete.status == 500)
        #expect(Self.error(delete).contains("unknown decision 'maybe'"), "\(Self.error(delete))")
        #expect(try await f.request(.GET, "/api/conversations/\(c.id)").status == 200, "nothing was deleted")
    }

    @Test("when the conversations cannot even be listed at start, chat requests are refused with why (not a 404), health says degraded")
    func recoveryFailsAltogether() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let c = try await f.create()
        await f.server.stop()
        try await Self.database(f).write { db in
            try db.execute(sql: "UPDATE conversations SET usage = 'not json' WHERE id = ?", arguments: [c.id])
        }
        let server = try await f.restarted()
        defer { Task { await server.stop() } }
        let events = try await f.request(.GET, "/api/conversations/\(c.id)/events", base: server.base)
        #expect(events.status == 503)
        #expect(Self.error(events).contains("could not be recovered"), "\(Self.error(events))")
        let health = try await f.request(.GET, "/api/health", base: server.base).json(HealthResponse.self)
        #expect(health.status == "degraded")
        let send = try await f.request(.POST, "/api/conversations/\(c.id)/messages", f.json(SendMessageRequest(text: "hi")), base: server.base)
        #expect(send.status == 503)
    }
}
