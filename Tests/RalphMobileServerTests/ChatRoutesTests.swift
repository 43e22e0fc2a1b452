import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Conversation routes that start no turn: CRUD, bad input, roles. No agent process may start.
@Suite("Chat routes", .serialized)
struct ChatRoutesTests {
    @Test("bad input gets a clear error and changes nothing")
    func badInput() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        try await f.probed()
        let outside = try await f.request(.POST, "/api/conversations", #"{"cwd":"/etc"}"#)
        #expect(outside.status == 400)
        #expect(outside.text.hasPrefix(#"{"error":"invalid_path: "#))
        let missing = try await f.request(.POST, "/api/conversations", #"{"cwd":"nope"}"#)
        #expect(missing.status == 400)
        let escape = try await f.request(.POST, "/api/conversations", #"{"cwd":"app/../../.."}"#)
        #expect(escape.status == 400)
        let backend = try await f.request(.POST, "/api/conversations", #"{"cwd":"app","backend":"gpt"}"#)
        #expect(backend.status == 400)
        #expect(backend.text.contains("unknown backend"))
        #expect(try await f.request(.GET, "/api/conversations").json(Page<Conversation>.self).items.isEmpty)

        #expect(try await f.request(.GET, "/api/conversations/c_nope").status == 404)
        #expect(try await f.request(.POST, "/api/conversations/c_nope/messages", #"{"text":"hi"}"#).status == 404)
        #expect(try await f.request(.GET, "/api/conversations/c_nope/events").status == 404)
        #expect(try await f.request(.DELETE, "/api/conversations/c_nope/session-rules/r_1").status == 404)
        #expect(try await f.request(.POST, "/api/approvals/a_nope", #"{"decision":"allow"}"#).status == 404)

        let c = try await f.create()
        let empty = try await f.request(.POST, "/api/conversations/\(c.id)/messages", #"{"text":"  \n "}"#)
        #expect(empty.status == 400)
        #expect(empty.text.contains("text cannot be empty"))
        let huge = try await f.request(.POST, "/api/conversations/\(c.id)/messages", f.json(SendMessageRequest(text: String(repeating: "x", count: 100_001))))
        #expect(huge.status == 400)
        #expect(huge.text.contains("longer than"))
        let badMode = try await f.request(.POST, "/api/conversations/\(c.id)/messages", #"{"text":"hi","mode":"shout"}"#)
        #expect(badMode.status == 400)
        let badDecision = try await f.request(.POST, "/api/approvals/a_x", #"{"decision":"maybe"}"#)
        #expect(badDecision.status == 400)
        let unknownRule = try await f.request(.DELETE, "/api/conversations/\(c.id)/session-rules/r_nope")
        #expect(unknownRule.status == 404)
        #expect(unknownRule.text.contains("session rule"))
        #expect(try await f.request(.GET, "/api/conversations?limit=0").status == 400)
        #expect(try await f.request(.GET, "/api/conversations?cursor=garbage").status == 400)
        #expect(try await f.request(.GET, "/api/approvals?state=maybe").status == 400)
        #expect(try await f.request(.PATCH, "/api/conversations/\(c.id)", #"{"title":"   "}"#).status == 400)
        let unchanged = try await f.conversation(c.id)
        #expect(unchanged.messageCount == 0)
        #expect(!unchanged.processRunning)
        #expect(f.agentPIDs().isEmpty, "no CLI was started by bad requests")
    }

    @Test("conversations: create, rename, pin (stored on the server), list with filters, delete")
    func crud() async throws {
        let f = try await ChatFixture.start()
        defer { Task { await f.stop() } }
        let a = try await f.create(title: "Alpha")
        let b = try await f.create()
        #expect(a.title == "Alpha")
        #expect(b.title.isEmpty)
        #expect(b.sessionRules.isEmpty && b.retry == nil && b.agentVersion == nil)
        let pinned = try await f.request(.PATCH, "/api/conversations/\(b.id)", #"{"pinned":true,"title":"Beta"}"#).json(Conversation.self)
        #expect(pinned.pinned && pinned.title == "Beta" && pinned.titleIsCustom)
        let onlyPinned = try await f.request(.GET, "/api/conversations?pinned=true").json(Page<Conversation>.self)
        #expect(onlyPinned.items.map(\.id) == [b.id])
        _ = try await f.request(.PATCH, "/api/conversations/\(a.id)", #"{"archived":true}"#)
        #expect(try await f.request(.GET, "/api/conversations").json(Page<Conversation>.self).items.map(\.id) == [b.id])
        #expect(try await f.request(.GET, "/api/conversations?archived=true").json(Page<Conversation>.self).items.count == 2)
        let deleted = try await f.request(.DELETE, "/api/conversations/\(a.id)")
        #expect(deleted.status == 200)
        #expect(try await f.request(.GET, "/api/conversations/\(a.id)").status == 404)
        #expect(try await f.request(.DELETE, "/api/conversations/\(a.id)").status == 404)
    }

    @Test("a viewer reads conversations but cannot chat, decide or revoke")
    func viewerReadsOnly() async throws {
        let f = try await ChatFixture.start(apiKey: "admin-key-for-chat-tests")
        defer { Task { await f.stop() } }
        try await f.probed()
        let c = try await f.create()
        let created = try await f.request(.POST, "/api/keys", #"{"role":"viewer","name":"phone"}"#).json(CreatedAPIKey.self)
        let viewer = [("X-Api-Key", created.secret)]
        #expect(try await f.request(.GET, "/api/conversations", headers: viewer).status == 200)
        #expect(try await f.request(.GET, "/api/conversations/\(c.id)/messages", headers: viewer).status == 200)
        #expect(try await f.request(.GET, "/api/approvals", headers: viewer).status == 200)
        let send = try await f.request(.POST, "/api/conversations/\(c.id)/messages", #"{"text":"hi"}"#, headers: viewer)
        #expect(send.status == 403)
        #expect(send.text.contains("needs operator"))
        #expect(try await f.request(.POST, "/api/conversations", #"{"cwd":"app"}"#, headers: viewer).status == 403)
        #expect(try await f.request(.PATCH, "/api/conversations/\(c.id)", #"{"pinned":true}"#, headers: viewer).status == 403)
        #expect(try await f.request(.POST, "/api/approvals/a_x", #"{"decision":"allow"}"#, headers: viewer).status == 403)
        #expect(try await f.request(.DELETE, "/api/conversations/\(c.id)/session-rules/r_1", headers: viewer).status == 403)
        #expect(f.agentPIDs().isEmpty)
    }
}
