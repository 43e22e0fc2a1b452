import RalphAPI

/// When a Live Activity starts, updates and ends, as a value type: the app performs the returned actions with
/// ActivityKit (which budgets updates, so an unchanged state is not sent again).
///
/// - ``start(_:_:)`` starts one for a subject, unless the thing is already over;
/// - ``handle(_:)`` sends a changed state, and ends the activity with its final state when the run ends;
/// - ``stop()`` ends it at the person's request.
public struct LiveActivityTracker: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case none
        case start(LiveActivitySubject, LiveActivityState)
        case update(LiveActivityState)
        /// End with this final state (it stays on the lock screen a while).
        case end(LiveActivityState)
    }

    /// Why ``start(_:_:)`` refused.
    public enum StartProblem: Error, Sendable, Equatable, CustomStringConvertible {
        case alreadyOver(LiveActivityState.Phase)
        case alreadyRunning

        public var description: String {
            switch self {
            case .alreadyOver(let phase): "This is over (\(phase.rawValue)): there is nothing to follow on the lock screen."
            case .alreadyRunning: "It is on the lock screen already."
            }
        }
    }

    public private(set) var subject: LiveActivitySubject?
    public private(set) var state: LiveActivityState?
    public var isActive: Bool { subject != nil }

    public init() {}

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

    public mutating func stop() -> Action {
        guard subject != nil, let state else { return .none }
        subject = nil
        return .end(state)
    }
}
