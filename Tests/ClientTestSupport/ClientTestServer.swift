import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobileServer
import RalphSimulator
import TestSupport

/// What every client test harness (the SDK's, the screens') stands on: a real server on port 0 over a fresh
/// workspace (`<tmp>/root`, by default with an `app` directory for conversations; data in `<tmp>/data`), runs started through
/// the API played by `fake-ralph`, and with `chat` conversations run by the real Claude CLI against `fake-anthropic`.
///
/// Each harness adds its own clients and keys on top; the server, its restart and the runs it is given are here once.
public struct ClientTestServer: Sendable {
    public let tmp: TemporaryDirectory
    public let root: String
    public let data: String
    public let apiKey: String?
    /// The model API double, when conversations run.
    public let anthropic: FakeAnthropic?
    /// The Responses API double the real Codex CLI talks to, when Codex conversations run too (`codex: true`).
    public let openAI: FakeOpenAI?
    public private(set) var server: LiveServer
    private let configure: @Sendable (inout ServerConfiguration) -> Void

    /// Short reconnect delays, so a reconnection takes well under a second.
    public static let fastPolicy: ReconnectPolicy = {
        var policy = ReconnectPolicy()
        policy.initialDelay = .milliseconds(100)
        policy.maxDelay = .milliseconds(400)
        return policy
    }()

    /// `name` names the temporary directory; `directories` are made in the workspace root; `configure` adds a
    /// harness's own settings to the server's. With `codex` (and `chat`), conversations with `backend: "codex"` run the
    /// real Codex CLI against `fake-openai` (commands without Codex's sandbox, every one still asked for); otherwise
    /// `codexCommand`, when given, is where the server looks for Codex (a path that does not exist: Codex unavailable).
    public static func start(
        _ name: String, apiKey: String? = nil, chat: Bool = false, codex: Bool = false, codexCommand missingCodex: String? = nil,
        directories: [String] = ["app"], configure extra: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ClientTestServer {
        let tmp = TemporaryDirectory(name)
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        for directory in directories { _ = tmp.subdirectory("root/" + directory) }
        let home = tmp.subdirectory("claude-home")
        let claude = chat ? try RealClaude.require() : nil
        let anthropic = chat ? try await FakeAnthropic.start(log: tmp.path + "/anthropic.log") : nil
        let codexCommand = chat && codex ? try RealCodex.require() : nil
        let openAI = codexCommand == nil ? nil : try await FakeOpenAI.start(log: tmp.path + "/openai.log")
        let api = anthropic
        let responses = openAI
        let configure: @Sendable (inout ServerConfiguration) -> Void = {
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
            $0.apiKey = apiKey
            if let claude, let api {
                $0.claudeCommand = claude
                $0.chatEnvironment = RealClaude.environment(home: home, apiBase: api.base)
            }
            if let codexCommand, let responses {
                // One home for both agents: Codex keeps its state in `<home>/.codex`, Claude Code in `<home>/.claude`.
                $0.chatEnvironment.merge(RealCodex.environment(home: home + "/.codex", apiBase: responses.base)) { _, codex in codex }
                $0.chatEnvironment["HOME"] = home
                $0.codexCommand = codexCommand
                $0.codexSandbox = "danger-full-access"
            } else if let missingCodex {
                $0.codexCommand = missingCodex
            }
            extra(&$0)
        }
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: data, configure)
        return ClientTestServer(
            tmp: tmp, root: root, data: data, apiKey: apiKey, anthropic: anthropic, openAI: openAI, server: server, configure: configure
        )
    }

    public func stop() async {
        await server.stop()
        await anthropic?.stop()
        await openAI?.stop()
    }

    /// A new server on the same port, directories and settings, once ``server`` was stopped: a server restart.
    public func restarted() async throws -> LiveServer {
        let port = server.port
        let configure = configure
        return try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            configure(&$0)
            $0.port = port
        }
    }

    /// Stops the server and starts it again (``restarted()``), in place.
    public mutating func restart() async throws {
        await server.stop()
        server = try await restarted()
    }

    /// A client of the server with `key` (the server's own ``apiKey`` by default).
    public func client(key: String? = nil) throws -> RalphClient {
        try RalphClient(baseURL: server.base, apiKey: key ?? apiKey)
    }

    /// Writes `text` to `<root>/<relative>`, creating directories.
    public func write(_ relative: String, _ text: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Starts a run written by this process in `<root>/<project>`; returns the writer and the run's id once `client`
    /// sees it live. (The test process holds its loop lock: such a run cannot be paused or stopped.)
    public func writeRun(
        _ project: String = "proj", prompt: String = "Build the thing", maxIterations: Int? = nil, client: RalphClient
    ) async throws -> (RalphRunWriter, String) {
        let workspace = root + "/" + project
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        if let maxIterations { try write(project + "/ralph.yml", "event_loop:\n  max_iterations: \(maxIterations)\n") }
        let writer = try RalphRunWriter(workspace: workspace)
        try writer.begin(prompt: prompt)
        try writer.record(topic: "task.start", payload: prompt, iteration: 0, hat: "loop", triggered: "planner")
        let eventsFile = writer.eventsFile
        let found = Locked<String?>(nil)
        try await eventually(10, "the run in the sessions list") {
            let session = try await client.sessions().first { eventsFile.hasSuffix($0.path) && $0.mode == .live }
            found.withLock { $0 = session?.id }
            return session != nil
        }
        guard let id = found.value else { throw TestFailure("no id for the run") }
        return (writer, id)
    }

    /// Writes `<root>/<project>/ralph.yml` with a `fake_ralph:` section and starts fake-ralph through the API with
    /// `client` (an admin's); returns the run's id once it is live (or suspended by a hook).
    public func startFakeRalph(_ behaviour: String, project: String = "fake", client: RalphClient) async throws -> String {
        let config = "fake_ralph:\n" + behaviour.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
        try write(project + "/ralph.yml", config)
        let started = try await client.start(StartSessionRequest(configPath: "ralph.yml", prompt: "Do it", workingDir: project))
        let found = Locked<String?>(nil)
        try await eventually(10, "fake-ralph's run to be live") {
            let session = try await client.status(started.id)
            found.withLock { $0 = session.id }
            // A loop a hook suspended (`suspend_at`) is running too, held at its boundary.
            return session.mode == .live || session.mode == .suspended
        }
        guard let id = found.value else { throw TestFailure("no id for fake-ralph's run") }
        return id
    }
}

/// Polls a main-actor condition every 10 ms (letting the models' tasks run) until it holds or `seconds` pass.
@MainActor
public func untilOnMain(_ seconds: Double, _ what: String, _ condition: @MainActor () -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if condition() { return }
    throw TestFailure("timed out after \(seconds)s waiting for \(what)")
}
