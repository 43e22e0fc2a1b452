import Foundation
import RalphAPI
import Synchronization

/// OpenAI's Codex CLI behind ``AgentAdapter``: one `codex app-server` per active conversation, spoken to over stdio
/// by ``CodexProtocol``.
public struct CodexAdapter: AgentAdapter {
    public let name: String
    /// A path, or a name looked up on the `PATH` of the environment.
    public let command: String
    /// The arguments of every process (`app-server` and its flags).
    public let arguments: [String]
    /// The sandbox commands run in (`workspace-write`, `read-only`, `danger-full-access`).
    public let sandbox: String
    /// Our version, told to Codex.
    public let clientVersion: String

    /// The approval policy of a conversation that names none: ask before every command Codex does not know to be
    /// harmless, and before every patch.
    public static let defaultApprovalPolicy = "untrusted"
    /// The approval policies a conversation may choose (its `permission_mode`).
    public static let approvalPolicies = ["untrusted", "on-request", "never"]

    public init(name: String = "codex", command: String, arguments: [String], sandbox: String, clientVersion: String) {
        self.name = name
        self.command = command
        self.arguments = arguments
        self.sandbox = sandbox
        self.clientVersion = clientVersion
    }

    /// How the thread of a conversation with `options` is opened.
    public func settings(for options: AgentSpawnOptions) -> CodexProtocol.Settings {
        let policy = options.permissionMode.flatMap { $0 == "default" ? nil : $0 } ?? Self.defaultApprovalPolicy
        return CodexProtocol.Settings(
            cwd: options.cwd, model: options.model, approvalPolicy: policy, sandbox: sandbox, resumeThreadID: options.resumeSessionID,
            clientVersion: clientVersion
        )
    }

    public func start(_ options: AgentSpawnOptions, environment: [String: String]) throws(ChildProcess.SpawnError) -> any AgentSession {
        let process = try AgentProcess.start(executable: command, arguments: arguments, workingDirectory: options.cwd, environment: environment)
        return CodexSession(process: process, protocol: CodexProtocol(settings: settings(for: options)))
    }
}

/// A running `codex app-server` as an ``AgentSession``: lines in and out go through one ``CodexProtocol`` under a lock,
/// so what it writes keeps the order the protocol decided. Events a command yields (an interrupt of a message Codex
/// has not begun) join the events of Codex's lines in one inbox, in order.
final class CodexSession: AgentSession {
    enum Input: Sendable {
        case line([UInt8])
        case events([AgentEvent])
    }

    let process: AgentProcess
    private let state: Mutex<CodexProtocol>
    private let inbox: AsyncStream<Input>
    private let post: AsyncStream<Input>.Continuation

    init(process: AgentProcess, protocol machine: CodexProtocol) {
        self.process = process
        var machine = machine
        let first = machine.start()
        self.state = Mutex(machine)
        (inbox, post) = AsyncStream<Input>.makeStream()
        for line in first.lines { process.send(line) }
    }

    func readEvents(_ receive: (AgentEvent) -> Void) async {
        let (lines, post) = (process.lines, post)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await line in lines { post.yield(.line(line)) }
                post.finish()
            }
            for await input in inbox {
                switch input {
                case .line(let line):
                    for event in apply({ $0.receive(line) }).events { receive(event) }
                case .events(let events):
                    for event in events { receive(event) }
                }
            }
        }
    }

    func send(_ command: AgentCommand) {
        let events = apply { $0.command(command) }.events
        if !events.isEmpty { post.yield(.events(events)) }
    }

    /// Runs `body` on the protocol and writes what it decided, in order, before anyone else can.
    private func apply(_ body: (inout CodexProtocol) -> CodexProtocol.Step) -> CodexProtocol.Step {
        state.withLock { machine in
            let step = body(&machine)
            for line in step.lines { process.send(line) }
            if step.closeInput { process.closeStdin() }
            return step
        }
    }

    func terminate(grace: Duration) async -> ChildProcess.Exit { await process.terminate(grace: grace) }
    func waitForExit() async -> ChildProcess.Exit { await process.waitForExit() }
    var stderrTail: String { process.stderrTail }
}
