import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Faults the real CLI cannot be made to show, with `fake-claude`: a crash mid-turn, garbage on stdout; and a CLI that
/// is not there at all.
@Suite("Chat when the CLI misbehaves", .serialized)
struct ChatFaultTests {
    @Test("the CLI crashes mid-turn: the user gets an error and can continue in the same session")
    func crash() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation(firstTurn: "first")
        try await f.send(c.id, script("say Starting", "crash"))
        let failed = try await stream.messages(until: "error")
        let error = try #require(failed.last?.json)
        #expect(error["recoverable"] as? Bool == true)
        #expect((error["message"] as? String)?.contains("exit code 3") == true)
        #expect((error["message"] as? String)?.contains("simulated crash") == true)
        // The partial reply is kept.
        #expect(failed.contains { $0.event == "segment_end" })
        try await f.send(c.id, "still there?")
        let again = try await stream.messages(until: "complete")
        #expect(text(of: again) == "Echo: still there?")
        let starts = f.starts()
        #expect(starts.count == 2)
        let session = try #require(starts.first?["session_id"]?.stringValue)
        let argv = strings(starts.last?["argv"])
        #expect(argv.contains("--resume") && argv.contains(session), "the second process resumed \(session): \(argv)")
    }

    @Test("lines that are not JSON, or of a type nobody knows, are skipped; the turn goes on")
    func garbage() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let stream = try await f.events(c.id)
        try await f.send(c.id, script("say Before", "garbage", "say after"))
        let events = try await stream.messages(until: "complete")
        #expect(text(of: events).hasPrefix("Before") && text(of: events).hasSuffix("after"))
        #expect(!events.contains { $0.event == "error" })
    }

    @Test("a missing CLI: a new conversation is refused naming the command looked for; an existing one's message fails saying so, not a hang")
    func missingBackend() async throws {
        let f = try await ChatFixture.start(cli: .fake)
        defer { Task { await f.stop() } }
        let c = try await f.create()
        await f.server.stop()
        let server = try await f.restarted { $0.claudeCommand = "/nonexistent/claude" }
        defer { Task { await server.stop() } }
        let refused = try await f.request(.POST, "/api/conversations", f.json(CreateConversationRequest(cwd: "app")), base: server.base)
        #expect(refused.status == 503 && refused.text.contains("unavailable: backend claude is not available: looked for /nonexistent/claude"), "\(refused.text)")

        let stream = try await f.events(c.id, base: server.base)
        try await f.send(c.id, "hello", base: server.base)
        let error = try #require(try await stream.messages(until: "error").last?.json)
        #expect((error["message"] as? String)?.contains("/nonexistent/claude") == true)
        #expect(error["recoverable"] as? Bool == false)
        let health = try await f.request(.GET, "/api/health", base: server.base).json(HealthResponse.self)
        let claude = try #require(health.agents?.first { $0.name == "claude" })
        #expect(claude.error?.contains("/nonexistent/claude") == true && claude.version == nil, "health says the CLI could not be asked")
        #expect(!health.capabilities.contains { $0.hasPrefix("chat_backends:") && $0.contains("claude") })
    }
}
