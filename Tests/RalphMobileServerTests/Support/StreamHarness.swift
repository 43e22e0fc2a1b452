import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import Testing

@testable import RalphMobileServer

/// A live run driven by the test: the test process holds `loop.lock` and appends lines like ralph does.
final class LiveRun: @unchecked Sendable {
    // Safety: tests use a LiveRun from one task at a time; the writer's file descriptor is not shared concurrently.
    let writer: RalphRunWriter
    var file: String { writer.eventsFile }
    var id: String { Fixture.id(writer.eventsFile) }

    init(workspace: String, prompt: String = "Stream test") throws {
        writer = try RalphRunWriter(workspace: workspace)
        try writer.begin(prompt: prompt)
    }

    /// Appends `count` records numbered from `from`; returns their payloads.
    @discardableResult
    func append(_ count: Int, from: Int = 1, payloadSize: Int = 0) -> [String] {
        let filler = String(repeating: "x", count: payloadSize)
        return (from..<(from + count)).map { n in
            let payload = "event \(n)\(filler)"
            Fixture.append(Fixture.record("build.note", payload, iteration: n, hat: "builder", triggered: "builder"), to: file)
            return payload
        }
    }

    /// Replaces the events file by one holding `lines` (written elsewhere, renamed over it), as a rewrite does.
    func replace(with lines: [String]) {
        let replacement = file + ".new"
        _ = FileManager.default.createFile(atPath: replacement, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(rename(replacement, file) == 0)
    }

    /// Cuts the events file to nothing in place.
    func truncate() throws {
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: 0)
        try handle.close()
    }

    func end() throws {
        try writer.terminate(reason: "completed", status: "All tasks completed successfully.", iterations: 1, exitCode: 0)
    }
}

/// A server on a fresh root, with the setup most stream tests share.
struct StreamHarness {
    let tmp: TemporaryDirectory
    let server: LiveServer
    let root: String

    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> StreamHarness {
        try await start(seeding: { _ in }, configure)
    }

    /// A server whose root `seed` has written into before it starts, so its first scan finds what is there.
    static func start(seeding seed: (_ root: String) throws -> Void, _ configure: (inout ServerConfiguration) -> Void) async throws -> StreamHarness {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        try seed(root)
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"), configure)
        return StreamHarness(tmp: tmp, server: server, root: root)
    }

    /// A server that requires `key`, on a root holding one run in `<root>/p` from the start (and whatever `more`
    /// writes); returns the run's id with it.
    static func keyed(_ key: String, seeding more: (_ root: String) -> Void = { _ in }) async throws -> (harness: StreamHarness, runID: String) {
        var file = ""
        let harness = try await start(seeding: { root in
            file = Fixture.run(in: root + "/p", name: "events-20260101-000000.jsonl", lines: [Fixture.emit("task.start", "x")])
            more(root)
        }) { $0.apiKey = key }
        return (harness, Fixture.id(file))
    }

    private init(tmp: TemporaryDirectory, server: LiveServer, root: String) {
        self.tmp = tmp
        self.server = server
        self.root = root
    }

    /// Waits until `server` lists run `id` as live (or, with `live: false`, as complete).
    static func waitForRun(_ server: LiveServer, _ id: String, live: Bool = true) async throws {
        try await eventually(5, "run \(id) to be listed") {
            let result = try await HTTP.get(server.base + "/api/sessions/\(id)/status")
            guard result.status == 200 else { return false }
            return try result.json(Session.self).mode == (live ? .live : .complete)
        }
    }

    /// A live run in `<root>/<workspace>` with `count` events, once the server lists it as live.
    func liveRun(_ workspace: String = "proj", appending count: Int = 0) async throws -> LiveRun {
        let run = try LiveRun(workspace: root + "/" + workspace)
        run.append(count)
        try await Self.waitForRun(server, run.id)
        return run
    }

    /// A live run with `count` events and a client on its stream that has read them; returns what it read, for the
    /// test to check.
    func streamedRun(appending count: Int, query: String = "") async throws -> (run: LiveRun, client: SSETestClient, replayed: [SSEMessage]) {
        let run = try await liveRun(appending: count)
        let client = try await stream(run.id, query: query)
        return (run, client, try await client.workflow(count: count))
    }

    /// A finished run of `lines` in `<root>/<workspace>`, once the server lists it as complete; returns its id.
    func finishedRun(_ workspace: String, name: String = "events-20260101-000000.jsonl", lines: [String]) async throws -> String {
        let id = Fixture.id(Fixture.run(in: root + "/" + workspace, name: name, lines: lines))
        try await Self.waitForRun(server, id, live: false)
        return id
    }

    /// The URL of a session's event stream.
    func eventsURL(_ id: String) -> String { server.base + "/api/sessions/\(id)/events" }

    /// An SSE connection to a session's events.
    func stream(_ id: String, query: String = "", headers: [(String, String)] = []) async throws -> SSETestClient {
        try await SSETestClient.connect(eventsURL(id) + query, headers: headers)
    }

    /// An SSE connection resuming after the event with id `lastEventID`, as EventSource reconnects.
    func resume(_ id: String, after lastEventID: String) async throws -> SSETestClient {
        try await stream(id, headers: [("Last-Event-ID", lastEventID)])
    }

    /// The session's detail as `GET /api/sessions/{id}` answers it.
    func detail(_ id: String) async throws -> SessionDetail {
        try await HTTP.get(server.base + "/api/sessions/\(id)").json(SessionDetail.self)
    }

    /// Stops the server, keeping the temporary directory until it has.
    func stop() {
        let (server, tmp) = (server, tmp)
        Task { await server.stop(); withExtendedLifetime(tmp) {} }
    }
}

extension SSETestClient.Item {
    func isRetry(_ ms: Int) -> Bool {
        if case .retry(let value) = self { return value == ms }
        return false
    }
}
