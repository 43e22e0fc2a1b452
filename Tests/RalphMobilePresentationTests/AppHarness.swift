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
struct AppHarness {
    let tmp: TemporaryDirectory
    let root: String
    let server: LiveServer
    let anthropic: FakeAnthropic?
    let apiKey: String?

    /// Reconnect delays short enough for tests.
    static let fastPolicy: ReconnectPolicy = {
        var policy = ReconnectPolicy()
        policy.initialDelay = .milliseconds(100)
        policy.maxDelay = .milliseconds(400)
        return policy
    }()

    static func start(apiKey: String? = nil, chat: Bool = false) async throws -> AppHarness {
        let tmp = TemporaryDirectory("rm-app")
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        _ = tmp.subdirectory("root/app")
        var anthropic: FakeAnthropic?
        var claude: String?
        if chat {
            claude = try RealClaude.require()
            anthropic = try await FakeAnthropic.start(log: tmp.path + "/anthropic.log")
        }
        let home = tmp.subdirectory("claude-home")
        let api = anthropic
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
            $0.apiKey = apiKey
            if let claude, let api {
                $0.claudeCommand = claude
                $0.chatEnvironment = RealClaude.environment(home: home, apiBase: api.base)
            }
        }
        return AppHarness(tmp: tmp, root: root, server: server, anthropic: anthropic, apiKey: apiKey)
    }

    func stop() async {
        await server.stop()
        await anthropic?.stop()
    }

    /// A client of the server with `key` (the harness's own by default).
    func client(key: String? = nil) throws -> RalphClient {
        try RalphClient(baseURL: server.base, apiKey: key ?? apiKey)
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
        let workspace = root + "/" + project
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        let writer = try RalphRunWriter(workspace: workspace)
        try writer.begin(prompt: prompt)
        try writer.record(topic: "task.start", payload: prompt, iteration: 0, hat: "loop", triggered: "planner")
        let eventsFile = writer.eventsFile
        let client = try client()
        let found = Locked<String?>(nil)
        try await eventually(10, "the run in the sessions list") {
            let session = try await client.sessions().first { eventsFile.hasSuffix($0.path) && $0.mode == .live }
            found.withLock { $0 = session?.id }
            return session != nil
        }
        guard let id = found.value else { throw TestFailure("no session id") }
        return (writer, id)
    }

    /// A new conversation in the workspace's `app` directory.
    func newConversation() async throws -> String {
        try await client().createConversation(CreateConversationRequest(cwd: "app")).id
    }

    /// Polls a main-actor condition every 10 ms until it holds or `seconds` pass.
    @MainActor
    static func until(_ seconds: Double = 10, _ what: String, _ condition: @MainActor () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        if condition() { return }
        throw TestFailure("timed out after \(seconds)s waiting for \(what)")
    }
}
