/// What a notification is about. A device chooses which kinds it wants (all by default).
public enum NotificationKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// A tool call of a conversation waits for allow or deny.
    case approval
    /// A run's RObot question (`human.interact`) waits for an answer before its timeout.
    case question
    /// A run ended: completed, failed or stopped, with the reason.
    case runFinished = "run_finished"
    /// A conversation's auto-reply loop stopped or paused (limit, completion, showstopper, stuck, error).
    case autoReply = "auto_reply"
    /// A conversation's running turn has had no output for a while (and waits for no approval).
    case turnStalled = "turn_stalled"
    /// A live run has written no event for longer than the server's silence threshold.
    case runSilent = "run_silent"
}
