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
    /// A lifecycle hook suspended a live run (`.ralph/suspend-state.json`): it waits for a resume (or retries the hook).
    case runSuspended = "run_suspended"
}

extension NotificationKind {
    /// Whether something waits for a person (an approval, a question, a suspended run): sent at once as urgent
    /// (time-sensitive on iOS, priority 10) and kept on screen until dealt with.
    public var waitsForPerson: Bool { self == .approval || self == .question || self == .runSuspended }

    /// The iOS notification category of a message of this kind that carries actions: `RALPH_APPROVAL` (Allow, Deny),
    /// `RALPH_QUESTION` (Answer with text), `RALPH_SUSPENDED` (Resume); nil for kinds that offer none.
    public var actionCategory: String? {
        switch self {
        case .approval: "RALPH_APPROVAL"
        case .question: "RALPH_QUESTION"
        case .runSuspended: "RALPH_SUSPENDED"
        case .runFinished, .autoReply, .turnStalled, .runSilent: nil
        }
    }
}
