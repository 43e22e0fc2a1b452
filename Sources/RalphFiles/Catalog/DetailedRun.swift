import Foundation
import RalphAPI

/// A run together with its details, present: what the detail routes answer from.
///
/// Made from a snapshot whose details are in memory (``RunSnapshot/detailed``) or read back by
/// ``RunCatalog/detailedSnapshot(id:)``, so code that needs the details gets them by type, never by a flag.
@dynamicMemberLookup
public struct DetailedRun: Sendable {
    public var snapshot: RunSnapshot
    public var details: RunDetails

    public init(snapshot: RunSnapshot, details: RunDetails) {
        self.snapshot = snapshot
        self.details = details
    }

    /// The snapshot with a fold read back from elsewhere (both parts replace what the snapshot held).
    init(snapshot: RunSnapshot, state: RunState) {
        var snapshot = snapshot
        snapshot.adopt(state)
        self.init(snapshot: snapshot, details: state.details)
    }

    public var id: String { snapshot.id }

    /// The snapshot's members (`run.checkpoints`, `run.isLive`), read through.
    public subscript<T>(dynamicMember member: KeyPath<RunSnapshot, T>) -> T { snapshot[keyPath: member] }

    /// The whole fold (summary and details).
    public var state: RunState { RunState(summary: snapshot.summary, details: details) }

    /// The detail representation (`GET /api/sessions/{id}`), given whether run control paused the run.
    public func detail(paused: Bool, stop: StopRequest? = nil, now: Date = Date()) -> SessionDetail {
        let summary = snapshot.summary
        return SessionDetail(
            session: snapshot.session(paused: paused, stop: stop, now: now), stopReason: snapshot.stopReason, hatFlow: details.hatFlow, hatTransitions: details.hatTransitionCount,
            hatUsage: details.hatUsageList(),
            iterationStats: details.iterationStats(current: summary.iteration, total: snapshot.config?.maxIterations, live: snapshot.isLive),
            backpressure: details.backpressure, tokens: details.tokens,
            recentToolCalls: details.recentToolCalls.map(WorkflowPayload.object),
            recentEvents: details.recentEvents.map(WorkflowPayload.object),
            pendingQuestion: snapshot.pendingQuestion(now: now), lineCount: summary.lineCount, malformedLines: summary.malformedCount,
            guidance: details.guidance, waves: details.waves, checkin: snapshot.robotCheckin
        )
    }
}

extension RunSnapshot {
    /// The run with its details, when they are in memory (nil: dropped; ask ``RunCatalog/detailedSnapshot(id:)``).
    public var detailed: DetailedRun? { details.map { DetailedRun(snapshot: self, details: $0) } }
}
