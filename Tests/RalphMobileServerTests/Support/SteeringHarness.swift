import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

/// A server whose `POST /api/sessions` runs the `fake-ralph` double, in a fresh workspace.
struct SteeringHarness {
    let tmp: TemporaryDirectory
    let server: LiveServer
    let root: String
    let data: String

    static var fakeRalph: String { Products.fakeRalph }

    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> SteeringHarness {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: data) {
            $0.ralphCommand = fakeRalph
            $0.stopGrace = 3
            configure(&$0)
        }
        return SteeringHarness(tmp: tmp, server: server, root: root, data: data)
    }

    func stop() {
        let (server, tmp) = (server, tmp)
        Task { await server.stop(); withExtendedLifetime(tmp) {} }
    }

    /// Writes `<root>/<project>/ralph.yml` with a `fake_ralph:` section.
    @discardableResult
    func config(_ behaviour: String, project: String = "proj", robotTimeout: Int? = nil) -> String {
        var text = "fake_ralph:\n" + behaviour.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
        if let robotTimeout { text += "RObot:\n  timeout_seconds: \(robotTimeout)\n" }
        let path = root + "/" + project + "/ralph.yml"
        Fixture.write(text, to: path)
        return path
    }

    func post(_ path: String, _ body: String, key: String? = nil) async throws -> HTTPResult {
        try await HTTP.request(server.base + path, method: .POST, headers: key.map { [("X-Api-Key", $0)] } ?? [], body: body)
    }

    /// Starts a run through the API (expects 201).
    func startRun(_ project: String = "proj", prompt: String = "Do it") async throws -> StartSessionResponse {
        let result = try await post("/api/sessions", #"{"config_path":"ralph.yml","prompt":"\#(prompt)","working_dir":"\#(project)"}"#)
        guard result.status == 201 else { throw TestFailure("start failed: \(result.status) \(result.text)") }
        return try result.json(StartSessionResponse.self)
    }

    /// A run started outside the server (as from a terminal) in `<root>/proj`, once the server lists it as live; the
    /// process and the run's id.
    func foreignRun() async throws -> (process: Process, id: String) {
        let foreign = Process()
        foreign.executableURL = URL(fileURLWithPath: Self.fakeRalph)
        foreign.arguments = ["run", "-c", "ralph.yml", "-p", "started in a terminal"]
        foreign.currentDirectoryURL = URL(fileURLWithPath: root + "/proj")
        foreign.standardOutput = FileHandle.nullDevice
        foreign.standardError = FileHandle.nullDevice
        try foreign.run()
        let found = Locked("")
        let base = server.base
        try await eventually(5, "the foreign run to be live") {
            let live = try await HTTP.get(base + "/api/sessions").json([Session].self).first { $0.mode == .live }
            found.withLock { $0 = live?.id ?? "" }
            return live != nil
        }
        return (foreign, found.value)
    }

    func status(_ id: String) async throws -> Session {
        try await HTTP.get(server.base + "/api/sessions/\(id)/status").json(Session.self)
    }

    func stream(_ id: String, query: String = "?history=all") async throws -> SSETestClient {
        try await SSETestClient.connect(server.base + "/api/sessions/\(id)/events" + query)
    }
}
