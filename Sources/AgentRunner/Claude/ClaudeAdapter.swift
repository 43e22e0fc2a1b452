import Foundation

/// Claude Code behind ``AgentAdapter``: `claude -p --input-format stream-json --output-format stream-json …`
/// (`design/CHAT.md`), stdout decoded by ``ClaudeStreamDecoder``, commands written as ``ClaudeInput`` lines.
public struct ClaudeAdapter: AgentAdapter {
    public let name: String
    /// A path, or a name looked up on the `PATH` of the environment.
    public let command: String
    /// Flags given to every process, before `--resume`, `--model` and `--permission-mode`.
    public let arguments: [String]

    public init(name: String = "claude", command: String, arguments: [String]) {
        self.name = name
        self.command = command
        self.arguments = arguments
    }

    /// The full argument list for `options`.
    public func arguments(for options: AgentSpawnOptions) -> [String] {
        var arguments = arguments
        if let session = options.resumeSessionID { arguments += ["--resume", session] }
        if let model = options.model { arguments += ["--model", model] }
        // `default` is the CLI's own default: no flag (not every version lists it among the choices).
        if let mode = options.permissionMode, mode != "default" { arguments += ["--permission-mode", mode] }
        return arguments
    }

    public func start(_ options: AgentSpawnOptions, environment: [String: String]) throws(ChildProcess.SpawnError) -> any AgentSession {
        ClaudeSession(
            process: try AgentProcess.start(executable: command, arguments: arguments(for: options), workingDirectory: options.cwd, environment: environment)
        )
    }
}

/// A running Claude process as an ``AgentSession``.
final class ClaudeSession: AgentSession {
    let process: AgentProcess

    init(process: AgentProcess) {
        self.process = process
    }

    func readEvents(_ receive: (AgentEvent) -> Void) async {
        for await line in process.lines {
            for output in ClaudeStreamDecoder.decode(line: line) { receive(output) }
        }
    }

    func send(_ command: AgentCommand) {
        let line: [UInt8] =
            switch command {
            case .user(let text, let id): ClaudeInput.user(text: text, uuid: id)
            case .allow(let requestID, let input): ClaudeInput.allow(requestID: requestID, input: input)
            case .deny(let requestID, let message, let interrupt): ClaudeInput.deny(requestID: requestID, message: message, interrupt: interrupt)
            case .interrupt(let requestID): ClaudeInput.interrupt(requestID: requestID)
            }
        process.send(line)
    }

    func terminate(grace: Duration) async -> ChildProcess.Exit { await process.terminate(grace: grace) }
    func waitForExit() async -> ChildProcess.Exit { await process.waitForExit() }
    var stderrTail: String { process.stderrTail }
}
