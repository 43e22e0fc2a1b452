import ClientTestSupport
import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobileServer
import RalphSimulator
import TestSupport

@testable import RalphMobilePresentation

/// A real server on port 0 over a fresh workspace, for the shell's tests (app model, onboarding, settings, live
/// feeds). Runs are written with ``RalphRunWriter`` in ralph's real layout; with `chat: true` conversations run the
/// real Claude CLI against `fake-anthropic`.
struct AppHarness: ServerHarness {
    let base: ClientTestServer

    var anthropic: FakeAnthropic? { base.anthropic }
    var apiKey: String? { base.apiKey }

    static func start(
        apiKey: String? = nil, chat: Bool = false, configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> AppHarness {
        AppHarness(base: try await ClientTestServer.start("rm-app", apiKey: apiKey, chat: chat, configure: configure))
    }

    /// A client of the server with `key` (the harness's own by default).
    func client(key: String? = nil) throws -> RalphClient {
        try base.client(key: key)
    }

    /// A fresh app state directory and an app model over it (keys in memory).
    @MainActor
    func app(_ name: String = "app") throws -> AppModel {
        try AppModel(directory: tmp.subdirectory("state-\(name)-\(UUID().uuidString.prefix(6))"), secrets: MemorySecretStore())
    }

    /// An app model with this server saved (with `key`, or the harness's) and active.
    @MainActor
    func connectedApp(key: String? = nil) async throws -> AppModel {
        let app = try app()
        let profile = try await app.profiles.add(name: "test", url: server.base, apiKey: key ?? apiKey)
        await app.serverAdded(profile)
        return app
    }

    /// A key of `role` created through the API.
    func createKey(_ role: Role, name: String? = nil) async throws -> CreatedAPIKey {
        try await client().createKey(role: role, name: name)
    }

    /// Starts a run written by this process in `<root>/<project>`; returns the writer and the run's session id.
    func writeRun(_ project: String = "proj", prompt: String = "Build the thing") async throws -> (RalphRunWriter, String) {
        try await base.writeRun(project, prompt: prompt, client: try client())
    }

    /// A new conversation in the workspace's `app` directory.
    func newConversation() async throws -> String {
        try await client().createConversation(CreateConversationRequest(cwd: "app")).id
    }

    /// Polls a main-actor condition every 10 ms until it holds or `seconds` pass.
    @MainActor
    static func until(_ seconds: Double = 10, _ what: String, _ condition: @MainActor () -> Bool) async throws {
        try await untilOnMain(seconds, what, condition)
    }
}
