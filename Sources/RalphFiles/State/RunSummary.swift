import Foundation
import RalphAPI

/// What the session list, status, liveness and the streams need of a run: small, and always in memory.
///
/// Folded together with the run's ``RunDetails`` by ``RunState``; unlike the details it is never dropped, so a reader of
/// a ``RunSnapshot`` can always use it.
public struct RunSummary: Sendable {
    /// Lines seen, complete ones only (ids run 1…lineCount).
    public internal(set) var lineCount = 0
    public internal(set) var eventCount = 0
    public internal(set) var malformedCount = 0
    /// Iteration of the latest orchestrator record.
    public internal(set) var iteration = 0
    /// The hat at work: `triggered` of the latest orchestrator record that names one (else its non-`loop` hat).
    public internal(set) var hat: String?
    public internal(set) var firstEventAt: String?
    public internal(set) var firstEventDate: Date?
    public internal(set) var lastEventAt: String?
    public internal(set) var lastEventDate: Date?
    /// The start event's payload, first line.
    public internal(set) var taskName: String?
    /// Set by `loop.terminate`; cleared if the orchestrator writes again (`ralph run --continue`).
    public internal(set) var termination: StopReason?
    public internal(set) var terminationEventID: Int?
    /// The latest `human.interact` that ralph may still be waiting on: no `human.response` and no later orchestrator
    /// record after it.
    public internal(set) var pendingQuestion: RalphEvent?
    /// The previous orchestrator record's time (as written, and parsed): where the next iteration starts.
    var lastRecordTs: String?
    var lastRecordDate: Date?

    public init() {}
}
