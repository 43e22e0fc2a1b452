import RalphAPI

/// What the conversation driver tells the agent process on its stdin. The server turns each into a stream-json line
/// (``ClaudeInput``) for the Claude CLI; other backends map them their own way.
public enum AgentCommand: Sendable, Hashable {
    /// A user message: starts a turn.
    case user(text: String)
    /// Allow a tool call. `input` is the original input unless the person changed it; `permissions` are the rules to
    /// add for the rest of the session ("allow for this session").
    case allow(requestID: String, input: JSONValue, permissions: JSONValue?)
    /// Deny a tool call, telling the agent why; `interrupt` also ends the turn.
    case deny(requestID: String, message: String, interrupt: Bool)
    /// Stop the running turn, keep the process.
    case interrupt(requestID: String)
}
