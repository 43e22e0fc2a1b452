import RalphAPI

/// When a Live Activity starts, updates and ends, as a value type: the app performs the returned actions with
/// ActivityKit (which budgets updates, so an unchanged state is not sent again).
///
/// - ``start(_:_:)`` starts one for a subject, unless the thing is already over;
/// - ``handle(_:)`` sends a changed state, and ends the activity with its final state when the run ends;
/// - ``stop()`` ends it at the person's request.
public struct LiveActivityTracker: Sendable, Equatable {
    /// What the app does with ActivityKit.
    public enum Action: Sendable, Equatable {
        /// Nothing to do.
        case none
        /// Request an activity for this subject, showing this state.
        case start(LiveActivitySubject, LiveActivityState)
        /// Show this new state.
        case update(LiveActivityState)
        /// End with this final state (it stays on the lock screen a while).
        case end(LiveActivityState)
    }

    /// Why ``start(_:_:)`` refused.
    public enum StartProblem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The state's phase is final (completed, failed or stopped): there is nothing left to follow.
        case alreadyOver(LiveActivityState.Phase)
        /// An activity is active already; ``LiveActivityTracker/stop()`` it first.
        case alreadyRunning

        /// A sentence for the person who asked.
        public var description: String {
            switch self {
            case .alreadyOver(let phase): "This is over (\(phase.rawValue)): there is nothing to follow on the lock screen."
            case .alreadyRunning: "It is on the lock screen already."
            }
        }
    }

    /// The subject of the active activity; nil when none is active.
    public private(set) var subject: LiveActivitySubject?
    /// The last state handed to the activity (kept after it ended).
    public private(set) var state: LiveActivityState?
    /// Whether an activity is active: started and not ended yet.
    public var isActive: Bool { subject != nil }

    /// A tracker with no activity.
    public init() {}

    /// Starts an activity for `subject` showing `state`. Throws ``StartProblem/alreadyRunning`` while one is active and
    /// ``StartProblem/alreadyOver(_:)`` when `state` is final; nothing changes then.
    public mutating func start(_ subject: LiveActivitySubject, _ state: LiveActivityState) throws(StartProblem) -> Action {
        guard self.subject == nil else { throw .alreadyRunning }
        guard !state.phase.isFinal else { throw .alreadyOver(state.phase) }
        self.subject = subject
        self.state = state
        return .start(subject, state)
    }

    /// New content for the activity's subject.
    public mutating func handle(_ new: LiveActivityState) -> Action {
        guard subject != nil, new != state else { return .none }
        state = new
        if new.phase.isFinal {
            subject = nil
            return .end(new)
        }
        return .update(new)
    }

    /// Ends the active activity with its last state (``Action/end(_:)``); ``Action/none`` when none is active.
    public mutating func stop() -> Action {
        guard subject != nil, let state else { return .none }
        subject = nil
        return .end(state)
    }
}
