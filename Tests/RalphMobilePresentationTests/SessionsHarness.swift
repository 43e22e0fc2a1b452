import ClientTestSupport
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
struct SessionsHarness: ServerHarness {
    static let adminKey = "sessions-harness-admin-key-3f9a2c71d0b84e56"

    let base: ClientTestServer
    let admin: RalphClient
    let operatorClient: RalphClient
    let viewer: RalphClient

    static func start() async throws -> SessionsHarness {
        let base = try await ClientTestServer.start("rm-sessions", apiKey: adminKey, directories: [])
        let (_, operatorKey) = try base.server.server.keyStore.create(role: .operator, name: "phone-operator")
        let (_, viewerKey) = try base.server.server.keyStore.create(role: .viewer, name: "phone-viewer")
        return SessionsHarness(
            base: base, admin: try base.client(), operatorClient: try base.client(key: operatorKey), viewer: try base.client(key: viewerKey))
    }

    func client(_ role: Role) -> RalphClient {
        switch role {
        case .admin: admin
        case .operator: operatorClient
        case .viewer: viewer
        }
    }

    /// Starts a new server on the same port and directories (after ``server`` was stopped): a server restart.
    func restartedServer() async throws -> LiveServer { try await base.restarted() }

    /// Writes `text` to `<root>/<relative>`, creating directories.
    func write(_ relative: String, _ text: String) throws { try base.write(relative, text) }

    /// Starts a run written by this process in `<root>/<project>`; returns the writer and the run's id once the server
    /// lists it live. (The test process holds its loop lock: such a run cannot be paused or stopped.)
    func writeRun(_ project: String = "proj", prompt: String = "Build the thing", maxIterations: Int? = nil) async throws -> (RalphRunWriter, String) {
        try await base.writeRun(project, prompt: prompt, maxIterations: maxIterations, client: admin)
    }

    /// Writes `<root>/<project>/ralph.yml` with a `fake_ralph:` section and starts fake-ralph through the API; returns
    /// the run's id once it is live.
    func startFakeRalph(_ behaviour: String, project: String = "fake") async throws -> String {
        try await base.startFakeRalph(behaviour, project: project, client: admin)
    }

    /// Polls a main-actor condition every 10 ms (letting the models' tasks run) until it holds or `seconds` pass.
    @MainActor
    static func until(_ seconds: Double = 5, _ what: String, _ condition: @MainActor () -> Bool) async throws {
        try await untilOnMain(seconds, what, condition)
    }
}
