import ClientTestSupport
import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobileServer
import TestSupport

/// A real server on port 0 over a fresh workspace, whose conversations run the real Claude Code CLI against
/// `fake-anthropic` (the model API double that answers each message as a script), and a client of it.
///
/// With `apiKey`, the server needs keys: ``client`` is the admin's, and ``client(role:)`` makes keys of other roles.
struct ChatHarness: ServerHarness {
    let base: ClientTestServer
    let anthropic: FakeAnthropic
    let client: RalphClient

    /// `stallAfter`: seconds of silence after which a turn is reported stalled (the server's default is 300). With
    /// `codex`, conversations created with `backend: "codex"` run the real Codex CLI against `fake-openai`.
    static func start(
        apiKey: String? = nil, stallAfter: Double? = nil, codex: Bool = false, configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ChatHarness {
        let base = try await ClientTestServer.start("rm-chat", apiKey: apiKey, chat: true, codex: codex, directories: ["app", "web"]) {
            if let stallAfter { $0.chatStallAfter = stallAfter }
            configure(&$0)
        }
        guard let anthropic = base.anthropic else { throw TestFailure("the chat server has no model API double") }
        return ChatHarness(base: base, anthropic: anthropic, client: try base.client())
    }

    /// A new conversation in `cwd` (relative to the workspace root).
    func newConversation(_ cwd: String = "app", title: String? = nil) async throws -> Conversation {
        try await client.createConversation(CreateConversationRequest(title: title, cwd: cwd))
    }

    /// A client whose key has `role` (the server must have been started with an admin `apiKey`).
    func client(role: Role) async throws -> (client: RalphClient, keyID: String) {
        let created = try await client.createKey(role: role, name: "chat-\(role.rawValue)")
        return (try RalphClient(baseURL: server.base, apiKey: created.secret), created.key.id)
    }
}

/// Polls a main-actor condition every 10 ms (letting the models' tasks run) until it holds or `seconds` pass.
@MainActor
func chatUntil(_ seconds: Double = 10, _ what: String, _ condition: @MainActor () -> Bool) async throws {
    try await untilOnMain(seconds, what, condition)
}
