/// Where a conversation's agent process is.
public enum ConversationStatus: String, Codable, Hashable, Sendable {
    /// No turn running (the process may be alive and waiting, or stopped after being idle).
    case idle
    /// A turn is running.
    case running
    /// A turn is waiting for an approval from a person.
    case awaitingApproval = "awaiting_approval"
    /// A turn has produced no output for a while and is not waiting for an approval.
    case stalled
    /// The agent CLI is retrying the model API (overloaded, rate limited …); ``Conversation/retry`` says why.
    case retrying
}
