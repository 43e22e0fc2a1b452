import RalphAPI

/// What the conversation driver tells the agent process on its stdin. The server turns each into a stream-json line
/// (``ClaudeInput``) for the Claude CLI; other backends map them their own way.
public enum AgentCommand: Sendable, Hashable {
    /// A user message: starts a turn. `id` names it to the agent (the turn id), so the agent's output can be matched to it.
    case user(text: String, id: String)
    /// Allow a tool call. `input` is the original input unless the person changed it. Nothing else is granted to the
    /// agent: "allow for this session" is kept and applied by the server.
    case allow(requestID: String, input: JSONValue)
    /// Deny a tool call, telling the agent why; `interrupt` also ends the turn.
    case deny(requestID: String, message: String, interrupt: Bool)
    /// Stop the running turn, keep the process.
    case interrupt(requestID: String)

    /// What the agent is told when a person denies a call without saying why.
    public static let defaultDenial = "The user denied this tool call."
}
