import Foundation
import RalphAPI
import RalphFiles
import RalphMobileKit
import RalphSimulator
import TestSupport

/// A real server on port 0 over a fresh workspace, with keys for each role, for the sessions, runs and library
/// screens' tests. Runs come from ``RalphRunWriter`` in this process (``writeRun(_:prompt:maxIterations:)``) or from
/// the `fake-ralph` double started through `POST /api/sessions` (``startFakeRalph(_:project:)``), which can be paused,
/// resumed and stopped for real.
struct SessionsHarness {
    static let adminKey = "sessions-harness-admin-key-3f9a2c71d0b84e56"

    let tmp: TemporaryDirectory
    let root: String
    let data: String
    let server: LiveServer
    let admin: RalphClient
    let operatorClient: RalphClient
    let viewer: RalphClient

    /// Short reconnect delays, so reconnection tests take well under a second per attempt.
    static let fastPolicy: ReconnectPolicy = {
        var policy = ReconnectPolicy()
        policy.initialDelay = .milliseconds(100)
        policy.maxDelay = .milliseconds(400)
        return policy
    }()

    static func start() async throws -> SessionsHarness {
        let tmp = TemporaryDirectory("rm-sessions")
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
            $0.apiKey = adminKey
        }
        let (_, operatorKey) = try server.server.keyStore.create(role: .operator, name: "phone-operator")
        let (_, viewerKey) = try server.server.keyStore.create(role: .viewer, name: "phone-viewer")
        return SessionsHarness(
            tmp: tmp, root: root, data: data, server: server, admin: try RalphClient(baseURL: server.base, apiKey: adminKey),
            operatorClient: try RalphClient(baseURL: server.base, apiKey: operatorKey), viewer: try RalphClient(baseURL: server.base, apiKey: viewerKey))
    }

    func client(_ role: Role) -> RalphClient {
        switch role {
        case .admin: admin
        case .operator: operatorClient
        case .viewer: viewer
        }
    }

    func stop() async { await server.stop() }

    /// Starts a new server on the same port and directories (after ``server`` was stopped): a server restart.
    func restartedServer() async throws -> LiveServer {
        let port = server.port
        return try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            $0.port = port
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
            $0.apiKey = Self.adminKey
        }
    }

    /// Writes `text` to `<root>/<relative>`, creating directories.
    func write(_ relative: String, _ text: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Starts a run written by this process in `<root>/<project>`; returns the writer and the run's id once the server
    /// lists it live. (The test process holds its loop lock: such a run cannot be paused or stopped.)
    func writeRun(_ project: String = "proj", prompt: String = "Build the thing", maxIterations: Int? = nil) async throws -> (RalphRunWriter, String) {
        let workspace = root + "/" + project
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        if let maxIterations { try write(project + "/ralph.yml", "event_loop:\n  max_iterations: \(maxIterations)\n") }
        let writer = try RalphRunWriter(workspace: workspace)
        try writer.begin(prompt: prompt)
        try writer.record(topic: "task.start", payload: prompt, iteration: 0, hat: "loop", triggered: "planner")
        let eventsFile = writer.eventsFile
        let client = admin
        let found = Locked<String?>(nil)
        try await eventually(10, "the run in the sessions list") {
            let session = try await client.sessions().first { eventsFile.hasSuffix($0.path) && $0.mode == .live }
            found.withLock { $0 = session?.id }
            return session != nil
        }
        guard let id = found.value else { throw TestFailure("no id for the run") }
        return (writer, id)
    }

    /// Writes `<root>/<project>/ralph.yml` with a `fake_ralph:` section and starts fake-ralph through the API; returns
    /// the run's id once it is live.
    func startFakeRalph(_ behaviour: String, project: String = "fake") async throws -> String {
        let config = "fake_ralph:\n" + behaviour.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
        try write(project + "/ralph.yml", config)
        let started = try await admin.start(StartSessionRequest(configPath: "ralph.yml", prompt: "Do it", workingDir: project))
        let client = admin
        let found = Locked<String?>(nil)
        try await eventually(10, "fake-ralph's run to be live") {
            let session = try await client.status(started.id)
            found.withLock { $0 = session.id }
            return session.mode == .live
        }
        guard let id = found.value else { throw TestFailure("no id for fake-ralph's run") }
        return id
    }

    /// Polls a main-actor condition every 10 ms (letting the models' tasks run) until it holds or `seconds` pass.
    @MainActor
    static func until(_ seconds: Double = 5, _ what: String, _ condition: @MainActor () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        if condition() { return }
        throw TestFailure("timed out after \(seconds)s waiting for \(what)")
    }
}
