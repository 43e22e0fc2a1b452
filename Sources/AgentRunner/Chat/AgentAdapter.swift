import Foundation


/// How a conversation's agent process is started, fixed when the conversation is created (plus the session to
/// resume, which the machine decides).
public struct AgentSpawnOptions: Sendable, Hashable {
    /// The conversation's working directory (Claude keys its sessions by it).
    public var cwd: String
    public var model: String?
    /// A permission mode the CLI accepts; `default` (or nil) means the CLI's own default, no flag.
    public var permissionMode: String?
    /// The agent's session to continue, when the machine asks for `--resume`.
    public var resumeSessionID: String?

    public init(cwd: String, model: String? = nil, permissionMode: String? = nil, resumeSessionID: String? = nil) {
        self.cwd = cwd
        self.model = model
        self.permissionMode = permissionMode
        self.resumeSessionID = resumeSessionID
    }
}

/// One agent CLI (Claude Code today) behind the conversation machine: starts its process, which then yields decoded
/// ``AgentEvent``s and takes ``AgentCommand``s. The server's conversation worker knows only this protocol, so another
/// CLI slots in beside ``ClaudeAdapter`` without touching the worker or the machines.
public protocol AgentAdapter: Sendable {
    /// The backend's name, as conversations store it (`claude`).
    var name: String { get }
    /// Starts a process for a conversation.
    func start(_ options: AgentSpawnOptions, environment: [String: String]) throws(ChildProcess.SpawnError) -> any AgentSession
}

/// A running agent process, as the conversation worker uses it.
public protocol AgentSession: AnyObject, Sendable {
    /// Reads the agent's output to its end (the process closed stdout), handing each decoded event to `receive` in
    /// order. One reader per session.
    func readEvents(_ receive: (AgentEvent) -> Void) async
    /// Writes a command on the agent's stdin (queued; never blocks on a child that does not read).
    func send(_ command: AgentCommand)
    /// Closes stdin, signals the process group, and kills it after `grace`.
    func terminate(grace: Duration) async -> ChildProcess.Exit
    func waitForExit() async -> ChildProcess.Exit
    /// The end of what the process wrote on stderr (complete once ``waitForExit()`` has returned).
    var stderrTail: String { get }
}
