import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile events ID`: the session's events as they happen, one per line.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Stream a session's events, one per line, until the run ends (Ctrl-C to leave).",
        discussion: """
            Starts with the last --history events, then follows live. The stream resumes where it left off after a \
            dropped connection or a server restart (no event is lost or repeated); connection notes go to stderr. \
            Exits 0 when the run ends, 1 if the session does not exist or the key is refused.
            """
    )

    @OptionGroup var server: ServerOptions

    @Argument(help: "The session id (or a unique prefix of it).")
    var id: String

    @Flag(help: "One JSON object per line (every field the server sends).")
    var json = false

    @Option(help: ArgumentHelp("How many past events to show first: a number or 'all'.", valueName: "n|all"))
    var history: String = "20"

    func validate() throws {
        guard history == "all" || (Int(history).map { $0 >= 0 } ?? false) else {
            throw ValidationError("--history must be a number ≥ 0 or 'all', got '\(history)'")
        }
    }

    @MainActor
    func run() async throws {
        let theme = server.theme
        let format = Format(theme: theme)
        let note = Theme.choose(noColor: server.noColor || isatty(STDERR_FILENO) != 1)
        try await withClient(server) { client in
            // Resolve the id first, so a typo gets a clear message instead of a stream error.
            let session = try await client.status(id)
            let stream = EventStream(client: client, path: "/api/sessions/\(RalphClient.component(session.id))/events", query: [("history", history)])
            var connectedBefore = false
            for await update in stream.updates() {
                switch update {
                case .state(let state):
                    switch state {
                    case .reconnecting(let attempt):
                        Self.note(note.paint("… connection lost, reconnecting (attempt \(attempt))", Theme.gold))
                    case .connected:
                        if connectedBefore { Self.note(note.dim("… reconnected, resuming after the last event shown")) }
                        connectedBefore = true
                    case .error(let message):
                        throw RalphMobileFailure(message: message)
                    default:
                        break
                    }
                case .event(let frame):
                    if frame.event == StreamEventName.reset {
                        let reset = try? WireJSON.decode(StreamReset.self, from: Data(frame.data.utf8))
                        Self.note(note.paint("— the run's events file was replaced (\(reset?.reason ?? "rewritten")); its events follow from line 1 —", Theme.gold))
                        continue
                    }
                    guard frame.event == StreamEventName.workflow else { continue }
                    if json {
                        say(frame.data)
                    } else if let event = WorkflowEvent(data: frame.data) {
                        say(format.event(event, width: isatty(STDOUT_FILENO) == 1 ? FullScreen.size().columns : 10_000))
                    }
                case .end(let data):
                    let end = try? WireJSON.decode(StreamEnd.self, from: Data(data.utf8))
                    Self.note(note.dim("— run ended: \(end.map { "\($0.status.rawValue)\($0.reason.map { " (\($0))" } ?? "")" } ?? "over") —"))
                    return
                }
            }
        }
    }

    static func note(_ text: String) {
        Output.write(text + "\n", to: STDERR_FILENO)
    }
}

/// An error whose message is shown as it is.
struct RalphMobileFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
