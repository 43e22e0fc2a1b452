import RalphAPI

/// Section 6: the run's mode and the buttons that change it, as the role and the run's state allow.
///
/// - A viewer sees no controls at all (``isShown`` is false).
/// - Pause shows while the run is live, Resume while it is paused (operator and admin).
/// - Stop shows while the run is live or paused, for admins only; an operator is told that stopping needs an admin.
/// - A finished run has no buttons: the note says so.
public struct ModeControlSection: Sendable, Equatable {
    /// Whether the section is on the screen (the role may steer).
    public var isShown: Bool
    public var mode: SessionBadge
    /// What the mode means for the person.
    public var note: String
    public var showsPause: Bool
    public var showsResume: Bool
    public var showsStop: Bool
    /// `Stopping a run needs an admin key.`, for an operator watching an active run.
    public var stopNote: String?

    public init(session: Session?, capabilities: Capabilities) {
        let mode = session?.mode ?? .complete
        let active = mode == .live || mode == .paused
        isShown = capabilities.canSteer
        self.mode = .mode(mode)
        switch mode {
        case .live: note = "ralph is running. Pausing stops its processes (SIGSTOP) until you resume."
        case .paused: note = "Paused: ralph’s processes are stopped. Resume to let it continue."
        default: note = "This run is over: it can no longer be paused, stopped, steered or sent events. Export still works."
        }
        showsPause = capabilities.canSteer && mode == .live
        showsResume = capabilities.canSteer && mode == .paused
        showsStop = capabilities.canStopRuns && active
        stopNote = capabilities.canSteer && !capabilities.canStopRuns && active ? "Stopping a run needs an admin key." : nil
    }
}
