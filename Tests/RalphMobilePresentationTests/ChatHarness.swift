import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobileServer
import TestSupport

/// A real server on port 0 over a fresh workspace, whose conversations run the real Claude Code CLI against
/// `fake-anthropic` (the model API double that answers each message as a script), and a client of it.
///
/// With `apiKey`, the server needs keys: ``client`` is the admin's, and ``client(role:)`` makes keys of other roles.
struct ChatHarness {
    let tmp: TemporaryDirectory
    let root: String
    let anthropic: FakeAnthropic
    let server: LiveServer
    let client: RalphClient

    /// Short reconnect delays, so a reconnection takes well under a second.
    static let fastPolicy: ReconnectPolicy = {
        var policy = ReconnectPolicy()
        policy.initialDelay = .milliseconds(100)
        policy.maxDelay = .milliseconds(400)
        return policy
    }()

    /// `stallAfter`: seconds of silence after which a turn is reported stalled (the server's default is 300).
    static func start(apiKey: String? = nil, stallAfter: Double? = nil) async throws -> ChatHarness {
        let tmp = TemporaryDirectory("rm-chat")
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        _ = tmp.subdirectory("root/app")
        _ = tmp.subdirectory("root/web")
        let home = tmp.subdirectory("claude-home")
        let claude = try RealClaude.require()
        let anthropic = try await FakeAnthropic.start(log: tmp.path + "/anthropic.log")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            $0.apiKey = apiKey
            if let stallAfter { $0.chatStallAfter = stallAfter }
            $0.claudeCommand = claude
            $0.chatEnvironment = RealClaude.environment(home: home, apiBase: anthropic.base)
        }
        let client = try RalphClient(baseURL: server.base, apiKey: apiKey)
        return ChatHarness(tmp: tmp, root: root, anthropic: anthropic, server: server, client: client)
    }

    func stop() async {
        await server.stop()
        await anthropic.stop()
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
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if condition() { return }
    throw TestFailure("timed out after \(seconds)s waiting for \(what)")
}
