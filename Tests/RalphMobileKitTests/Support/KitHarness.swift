import ClientTestSupport
import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import TestSupport

@testable import RalphMobileKit

/// A real server on port 0 over a fresh workspace (``ClientTestServer``), and a client of it. Conversations run the
/// real Claude CLI, which talks to `fake-anthropic` (the model API double answering each message as a script).
///
/// Runs come from two real sources: ``writeRun(_:prompt:maxIterations:)`` writes one from this process with
/// ``RalphRunWriter`` (the loop lock is held by the test process, so such a run is never paused or stopped: the server
/// refuses to signal itself), and ``startFakeRalph(_:project:)`` starts the `fake-ralph` double through
/// `POST /api/sessions`, a separate process that can be paused, resumed and stopped for real.
struct KitHarness: ServerHarness {
    private(set) var base: ClientTestServer
    let anthropic: FakeAnthropic
    let client: RalphClient

    /// With `codex`, conversations created with `backend: "codex"` run the real Codex CLI against `fake-openai`; with
    /// `codexCommand`, the server looks for Codex there (a path that does not exist makes it unavailable).
    static func start(apiKey: String? = nil, codex: Bool = false, codexCommand: String? = nil) async throws -> KitHarness {
        let base = try await ClientTestServer.start("rm-kit", apiKey: apiKey, chat: true, codex: codex, codexCommand: codexCommand)
        guard let anthropic = base.anthropic else { throw TestFailure("the chat server has no model API double") }
        return KitHarness(base: base, anthropic: anthropic, client: try base.client())
    }

    /// Stops the server and starts a new one on the same port and directories (a server restart).
    mutating func restart() async throws { try await base.restart() }

    /// A new conversation in the workspace's `app` directory; returns its id.
    func newConversation() async throws -> String {
        try await client.createConversation(CreateConversationRequest(cwd: "app")).id
    }

    /// Starts a run written by this process in `<root>/<project>`; returns the writer and the run's session id.
    func writeRun(_ project: String = "proj", prompt: String = "Build the thing", maxIterations: Int? = nil) async throws -> (RalphRunWriter, String) {
        try await base.writeRun(project, prompt: prompt, maxIterations: maxIterations, client: client)
    }

    /// Writes `<root>/<project>/ralph.yml` for fake-ralph and starts it through the API; returns the run's id.
    func startFakeRalph(_ behaviour: String, project: String = "fake") async throws -> String {
        try await base.startFakeRalph(behaviour, project: project, client: client)
    }

    /// Appends a raw JSON line to a run's events file (fields ralph's own writer does not produce, e.g. `tool`).
    static func appendRaw(_ json: String, to writer: RalphRunWriter) throws {
        try EventFileAppender.append(line: Array(json.utf8), to: writer.eventsFile)
    }
}

/// Polls a main-actor condition every 10 ms (letting the models' tasks run) until it holds or `seconds` pass.
@MainActor
func until(_ seconds: Double = 5, _ what: String, _ condition: @MainActor () -> Bool) async throws {
    try await untilOnMain(seconds, what, condition)
}
