import Foundation
import RalphAPI
import RalphFiles
import RalphMobileServer
import RalphSimulator
import TestSupport

@testable import RalphMobileKit

/// A real server on port 0 over a fresh workspace, and a client of it. Conversations run the real Claude CLI, which
/// talks to `fake-anthropic` (the model API double answering each message as a script).
///
/// Runs come from two real sources: ``writeRun(_:)`` writes one from this process with ``RalphRunWriter`` (the loop
/// lock is held by the test process, so such a run is never paused or stopped: the server refuses to signal itself),
/// and ``startFakeRalph(_:)`` starts the `fake-ralph` double through `POST /api/sessions`, a separate process that can
/// be paused, resumed and stopped for real.
struct KitHarness {
    let tmp: TemporaryDirectory
    let root: String
    let data: String
    let apiKey: String?
    let anthropic: FakeAnthropic
    private(set) var server: LiveServer
    let client: RalphClient

    /// Short reconnect delays so tests of reconnection take well under a second per attempt.
    static let fastPolicy: ReconnectPolicy = {
        var policy = ReconnectPolicy()
        policy.initialDelay = .milliseconds(100)
        policy.maxDelay = .milliseconds(400)
        return policy
    }()

    static func start(apiKey: String? = nil) async throws -> KitHarness {
        let tmp = TemporaryDirectory("rm-kit")
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        _ = tmp.subdirectory("root/app")
        let claudeHome = tmp.subdirectory("claude-home")
        let claude = try RealClaude.require()
        let anthropic = try await FakeAnthropic.start(log: tmp.path + "/anthropic.log")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
            $0.apiKey = apiKey
            Self.useClaude(&$0, command: claude, home: claudeHome, api: anthropic)
        }
        let client = try RalphClient(baseURL: server.base, apiKey: apiKey)
        return KitHarness(tmp: tmp, root: root, data: data, apiKey: apiKey, anthropic: anthropic, server: server, client: client)
    }

    func stop() async {
        await server.stop()
        await anthropic.stop()
    }

    /// Stops the server and starts a new one on the same port and directories (a server restart).
    mutating func restart() async throws {
        let port = server.port
        await server.stop()
        let claudeHome = tmp.path + "/claude-home"
        let claude = try RealClaude.require()
        let anthropic = anthropic
        server = try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            $0.port = port
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
            $0.apiKey = apiKey
            Self.useClaude(&$0, command: claude, home: claudeHome, api: anthropic)
        }
    }

    /// A new conversation in the workspace's `app` directory; returns its id.
    func newConversation() async throws -> String {
        try await client.createConversation(CreateConversationRequest(cwd: "app")).id
    }

    /// Conversations run the real Claude CLI at `command`, at home in `home`, asking the model API double `api`.
    static func useClaude(_ configuration: inout ServerConfiguration, command: String, home: String, api: FakeAnthropic) {
        configuration.claudeCommand = command
        configuration.chatEnvironment = RealClaude.environment(home: home, apiBase: api.base)
    }

    /// Starts a run written by this process in `<root>/<project>`; returns the writer and the run's session id.
    func writeRun(_ project: String = "proj", prompt: String = "Build the thing", maxIterations: Int? = nil) async throws -> (RalphRunWriter, String) {
        let workspace = root + "/" + project
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        if let maxIterations {
            try "event_loop:\n  max_iterations: \(maxIterations)\n".write(toFile: workspace + "/ralph.yml", atomically: true, encoding: .utf8)
        }
        let writer = try RalphRunWriter(workspace: workspace)
        try writer.begin(prompt: prompt)
        try writer.record(topic: "task.start", payload: prompt, iteration: 0, hat: "loop", triggered: "planner")
        let eventsFile = writer.eventsFile
        let client = client
        let id = Locked<String?>(nil)
        try await eventually(10, "the run in the sessions list") {
            let found = try await client.sessions().first { eventsFile.hasSuffix($0.path) && $0.mode == .live }
            id.withLock { $0 = found?.id }
            return found != nil
        }
        return (writer, id.value!)
    }

    /// Writes `<root>/<project>/ralph.yml` for fake-ralph and starts it through the API; returns the run's id.
    func startFakeRalph(_ behaviour: String, project: String = "fake") async throws -> String {
        let workspace = root + "/" + project
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        let config = "fake_ralph:\n" + behaviour.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
        try config.write(toFile: workspace + "/ralph.yml", atomically: true, encoding: .utf8)
        let started = try await client.start(StartSessionRequest(configPath: "ralph.yml", prompt: "Do it", workingDir: project))
        let client = client
        let id = Locked<String?>(nil)
        try await eventually(10, "fake-ralph's run to be live") {
            let session = try await client.status(started.id)
            id.withLock { $0 = session.id }
            return session.mode == .live
        }
        return id.value!
    }

    /// Appends a raw JSON line to a run's events file (fields ralph's own writer does not produce, e.g. `tool`).
    static func appendRaw(_ json: String, to writer: RalphRunWriter) throws {
        try EventFileAppender.append(line: Array(json.utf8), to: writer.eventsFile)
    }
}

/// Polls a main-actor condition every 10 ms (letting the models' tasks run) until it holds or `seconds` pass.
@MainActor
func until(_ seconds: Double = 5, _ what: String, _ condition: @MainActor () -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if condition() { return }
    throw TestFailure("timed out after \(seconds)s waiting for \(what)")
}
