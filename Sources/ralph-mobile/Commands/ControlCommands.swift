import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// Arguments of the commands that act on one session.
struct SessionTarget: ServerTarget {
    @OptionGroup var server: ServerOptions
    @Argument(help: "The session id (or a unique prefix of it).") var id: String
}

struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause a live run (SIGSTOP to its process group).")
    @OptionGroup var target: SessionTarget
    @MainActor func run() async throws {
        try await target.perform { "paused (pid \(try await $0.pause(target.id).pid)) — resume with: ralph-mobile resume \(target.id)" }
    }
}

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a run: SIGCONT if the server paused it; a loop a hook suspended is asked to go on (.ralph/resume-requested)."
    )
    @OptionGroup var target: SessionTarget
    @MainActor func run() async throws {
        try await target.perform { client in
            let answer = try await client.resume(target.id)
            return answer.status == "resume_requested"
                ? "resume requested (pid \(answer.pid)): the suspended loop goes on" : "resumed (pid \(answer.pid))"
        }
    }
}

struct StopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop a run at the end of its iteration (ralph's own stop); --force signals it (SIGTERM, then SIGKILL).",
        discussion: """
            Asks for confirmation unless --yes is given; without a terminal to ask on, --yes is required. A second stop \
            while a graceful one is pending forces it.
            """
    )

    @OptionGroup var target: SessionTarget

    @Flag(name: .long, help: "Signal the process group now instead of waiting for the end of the iteration.")
    var force = false

    @Flag(name: [.short, .long], help: "Do not ask for confirmation.")
    var yes = false

    @MainActor
    func run() async throws {
        try await withClient(target.server) { client in
            let session = try await client.status(target.id)
            // Nothing to confirm: the server would refuse it (`host_offline`), and the host may be back by the answer.
            if session.isUnreachable {
                throw RalphClientError.hostOffline("\(session.host.map { "host \($0)" } ?? "its host") is offline: run \(session.id.prefix(8)) cannot be stopped until it is back")
            }
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw RalphMobileFailure(message: "stopping needs confirmation: run it in a terminal or pass --yes")
                }
                let how = force || ControlWords.nextStopForces(session) ? "Force-stop" : "Stop (at the end of this iteration)"
                Output.write("\(how) run \(session.id.prefix(8)) (\(session.taskName ?? session.path), iteration \(session.iteration))? [y/N] ", to: STDOUT_FILENO)
                let reply = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
                guard reply == "y" || reply == "yes" else {
                    say("not stopped")
                    return
                }
            }
            say(ControlWords.stopAnswer(try await client.stop(session.id, force: force)))
        }
    }
}

struct EmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emit",
        abstract: "Append an event to a live run's events, as ralph's `emit` does.",
        discussion: "The payload is parsed as JSON when it is valid JSON, else sent as text."
    )

    @OptionGroup var target: SessionTarget

    @Argument(help: "The topic, e.g. build.blocked.")
    var topic: String

    @Argument(help: "The payload (JSON or text); omit for none.")
    var payload: String?

    @MainActor
    func run() async throws {
        try await target.perform { client in
            let answer = try await client.emit(target.id, topic: topic, payload: payload.map(Self.payload))
            return "emitted \(answer.topic) (event #\(SessionEventID(answer.id)?.line.description ?? answer.id)) at \(answer.timestamp)"
        }
    }

    /// JSON when the text is JSON, else the text itself.
    static func payload(_ text: String) -> JSONValue {
        (try? JSONParser.parse(text)) ?? .string(text)
    }
}

struct SteerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steer",
        abstract: "Send guidance to a live run: for its next iteration, or with --now for the iteration in progress."
    )

    @OptionGroup var target: SessionTarget

    @Flag(name: .customLong("now"), help: "Steer the current iteration (ralph's RPC steer; runs the server started in RPC mode).")
    var now = false

    @Argument(parsing: .remaining, help: "The message.")
    var message: [String]

    func validate() throws {
        guard !message.joined().trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("the message is empty") }
    }

    @MainActor
    func run() async throws {
        try await target.perform { client in
            let answer = try await client.steer(target.id, message: message.joined(separator: " "), urgent: now)
            return SteerWords.line(answer)
        }
    }
}

struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start a ralph run on the server.",
        discussion: "Paths are taken from --dir (default: the server's first workspace); the config may be `builtin:<preset>`."
    )

    @OptionGroup var server: ServerOptions

    @Option(name: [.short, .long], help: ArgumentHelp("The ralph config or preset file.", valueName: "path"))
    var config: String

    @Option(name: [.short, .long], help: ArgumentHelp("The prompt text.", valueName: "text"))
    var prompt: String?

    @Option(name: [.customShort("P"), .customLong("prompt-file")], help: ArgumentHelp("A prompt file.", valueName: "path"))
    var promptFile: String?

    @Option(help: ArgumentHelp("Directory to run in (inside a workspace).", valueName: "dir"))
    var dir: String?

    @Option(help: "The agent backend (ralph's -b).")
    var backend: String?

    @Option(name: .customLong("max-iterations"), help: "Stop after this many iterations.")
    var maxIterations: Int?

    @Flag(help: "Open the live dashboard on the new run.")
    var watch = false

    func validate() throws {
        guard (prompt == nil) != (promptFile == nil) else { throw ValidationError("give either --prompt or --prompt-file") }
        if let maxIterations, maxIterations < 1 { throw ValidationError("--max-iterations must be at least 1") }
    }

    @MainActor
    func run() async throws {
        var started: StartSessionResponse?
        try await withClient(server) { client in
            let request = StartSessionRequest(configPath: config, promptPath: promptFile, prompt: prompt, workingDir: dir, backend: backend, maxIterations: maxIterations)
            let answer = try await client.start(request)
            say("started \(answer.id)\(answer.pending ? " (pending: ralph has not created its events file yet)" : "") pid \(answer.pid)")
            say(server.theme.dim("output: ralph-mobile log \(answer.id)   events: ralph-mobile events \(answer.id)"))
            started = answer
        }
        if watch, let started {
            try await Dashboard.run(server: server, sessionID: started.id)
        }
    }
}

struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Print ralph's output of a run the server started; follows it until the run ends."
    )

    @OptionGroup var target: SessionTarget

    @Flag(name: .customLong("no-follow"), help: "Print what is there and exit.")
    var noFollow = false

    @MainActor
    func run() async throws {
        try await withClient(target.server) { client in
            for try await chunk in try await client.log(target.id, follow: !noFollow) {
                Output.write(bytes: Array(chunk.readableBytesView), to: STDOUT_FILENO)
            }
        }
    }
}

struct QuestionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "questions", abstract: "List questions live runs are waiting on (human.interact).")

    @OptionGroup var server: ServerOptions

    @MainActor
    func run() async throws {
        let theme = server.theme
        try await withClient(server) { client in
            let questions = try await client.questions()
            guard !questions.isEmpty else {
                say(theme.dim("no pending questions"))
                return
            }
            for q in questions {
                say("\(theme.accent(q.id))  session \(q.sessionId.prefix(8))  iteration \(q.iteration)  \(theme.hat(q.hat))  asked \(Text.clock(q.askedAt))  times out \(Text.clock(q.timeoutAt))\(q.timeoutEstimated ? theme.dim(" (estimated)") : "")")
                say("  " + theme.paint(q.questionText, Theme.gold, bold: true))
            }
            say(theme.dim("answer with: ralph-mobile answer <question-id> \"…\""))
        }
    }
}

struct AnswerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "answer", abstract: "Answer a run's question (appends human.response).")

    @OptionGroup var server: ServerOptions

    @Argument(help: "The question id (from `questions`).")
    var questionID: String

    @Argument(parsing: .remaining, help: "The answer.")
    var text: [String]

    func validate() throws {
        guard !text.joined().trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("the answer is empty") }
    }

    @MainActor
    func run() async throws {
        try await withClient(server) { client in
            let ack = try await client.answer(questionID: questionID, text: text.joined(separator: " "))
            say("answered \(ack.questionId) (event \(ack.id)) at \(ack.deliveredAt)")
        }
    }
}
