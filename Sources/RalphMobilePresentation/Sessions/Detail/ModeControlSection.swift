import RalphAPI
import RalphMobileKit

/// Section 6: the run's mode and the buttons that change it, as the role and the run's state allow.
///
/// - A viewer sees no controls at all (``isShown`` is false).
/// - Pause shows while the run is live, Resume while it is paused or suspended by a hook (operator and admin).
/// - Stop shows while the run is live or paused, for admins only; an operator is told that stopping needs an admin.
/// - A finished run has no buttons: the note says so.
/// - A run whose host is offline (a cluster) has none either: ``controlsOffReason`` says why, until the host is back.
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
    /// The stop button: "Stop at end of iteration", then "Force stop" once a graceful stop is pending.
    public var stopLabel: String
    /// Whether the stop button forces (a graceful stop is pending).
    public var stopForces: Bool
    /// The stop asked of the run, in words ("stopping at the end of this iteration"; after the end, which stop it was).
    public var stopLine: String?
    /// Who holds the run: "Suspended by hook ci-gate: <reason>" or "Paused by the server (SIGSTOP)".
    public var holdLine: String?
    /// Why the controls are off although the run may still go on: its host is offline ("Controls are off: host alpha
    /// is offline, …"); nil otherwise.
    public var controlsOffReason: String?

    public init(session: Session?, capabilities: Capabilities) {
        let unreachable = session?.isUnreachable ?? false
        // What an unreachable run does is not known: none of its last known modes applies.
        let mode = unreachable ? .unreachable : session?.mode ?? .complete
        let active = mode == .live || mode == .paused || mode == .suspended
        isShown = capabilities.canSteer
        self.mode = .mode(mode)
        switch mode {
        case .live: note = "ralph is running. Pausing stops its processes (SIGSTOP) until you resume."
        case .paused: note = "Paused by the server: ralph’s processes are stopped (SIGSTOP). Resume to let it continue."
        case .suspended: note = "A lifecycle hook suspended the loop. Resume asks ralph to go on (.ralph/resume-requested)."
        case .unreachable: note = session.flatMap(HostWords.unreachable) ?? "The run’s host is offline."
        default: note = "This run is over: it can no longer be paused, stopped, steered or sent events. Export still works."
        }
        showsPause = capabilities.canSteer && mode == .live
        // Resume is a SIGCONT for our pause and a resume request for a hook's suspension: both for operators.
        showsResume = capabilities.canSteer && (mode == .paused || mode == .suspended)
        showsStop = capabilities.canStopRuns && active
        stopNote = capabilities.canSteer && !capabilities.canStopRuns && active ? "Stopping a run needs an admin key." : nil
        stopForces = session.map(ControlWords.nextStopForces) ?? false
        stopLabel = session.map(ControlWords.stopButton) ?? "Stop at end of iteration"
        stopLine = session.flatMap(ControlWords.stop)
        holdLine = session.flatMap(ControlWords.hold)
        controlsOffReason = session.flatMap(HostWords.controlsOff)
    }
}
