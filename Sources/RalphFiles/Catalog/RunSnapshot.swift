import Foundation
import RalphAPI

/// What the catalog knows about one run at one moment: where it is, its folded state, and its liveness.
public struct RunSnapshot: Sendable {
    public var location: RunLocation
    /// What the list, status and streams need: always here.
    public internal(set) var summary = RunSummary()
    /// Hat flow, iterations, usage, tokens, backpressure, recent events: nil when dropped from memory (a finished,
    /// indexed run); ``RunCatalog/detailedSnapshot(id:)`` reads them back.
    public internal(set) var details: RunDetails? {
        get { detailsBox?.value }
        set { detailsBox = newValue.map(SnapshotBox.init) }
    }
    /// Out of line (see ``SnapshotBox``): nil, one word, for the finished runs that make most of a large workspace.
    private var detailsBox: SnapshotBox<RunDetails>? = emptyDetailsBox
    /// Listed from a fast scan of its file at the first discovery: the summary is the fold's, exactly, but the details
    /// are still being folded in the background (``RunCatalog/waitUntilFolded(id:timeout:)``), and lines appended since
    /// the scan are announced once they are.
    public internal(set) var foldPending = false
    /// Liveness evidence of the run's workspace.
    public var liveness: WorkspaceLiveness {
        get { livenessBox.value }
        set { livenessBox = SnapshotBox(newValue) }
    }
    /// Out of line (see ``SnapshotBox``), and one box for all the runs of a workspace (the catalog sets it).
    var livenessBox = emptyLivenessBox
    public var config: WorkspaceConfig?
    /// The config the run was started with, when this server started it with `-c <file>` (``RunCatalog/assignRunConfig(_:toRun:)``);
    /// it wins over the workspace's ``config`` for `total` and `publishes`.
    public var runConfig: WorkspaceConfig?
    /// Bumped whenever the file is replaced or shrinks and is re-read from the start (ids restart).
    public var generation = 0
    /// Byte offset of line `k * checkpointInterval + 1`, for fast replay from any id.
    public var checkpoints: [Int] = [0]
    /// Start time from the file name (`events-20260205-083922.jsonl`) or, failing that, its modification time.
    public var fileStartedAt: Date?
    /// File identity the state was read from.
    public var device: UInt64 = 0
    public var inode: UInt64 = 0

    public static let checkpointInterval = 1024

    public init(location: RunLocation) {
        self.location = location
    }

    public var id: String { location.id }

    /// The summary, under the name readers used before the summary and the details were split.
    public var state: RunSummary { summary }

    /// The whole fold (both parts), when the details are in memory.
    var fold: RunState? { details.map { RunState(summary: summary, details: $0) } }

    /// Folds lines into both parts in place. The caller restored the details first: false (nothing folded) if it did not.
    mutating func fold(_ lines: [DecodedLine]) -> Bool {
        guard var details else { return false }
        // Taken out so the local copy is the only one: folded in place, not copied.
        self.details = nil
        for line in lines { RunState.fold(line, summary: &summary, details: &details) }
        self.details = details
        return true
    }

    /// Sets both parts from a fold (`keepDetails` false: the summary only).
    mutating func adopt(_ state: RunState, keepDetails: Bool = true) {
        summary = state.summary
        details = keepDetails ? state.details : nil
    }

    /// Whether the workspace names this run as its current one.
    public var isCurrent: Bool { liveness.currentRunFile == location.file }

    /// Live: the current run of a workspace whose loop runs, and not terminated.
    public var isLive: Bool { isCurrent && liveness.alive && summary.termination == nil }

    /// Whether its session (``session(paused:stop:now:)``) depends on nothing but this snapshot and run control's
    /// records: not live (a live run's elapsed time is the clock's) and with a start date (else its start is now).
    public var isSettled: Bool { !isLive && startDate != nil }

    /// The mode as the files show it. Whether the run is paused is run control's to say (it sent SIGSTOP): use
    /// ``mode(paused:)`` where that matters.
    public var mode: SessionMode { mode(paused: false) }

    /// The status as the files show it (never `paused`; see ``status(paused:)``).
    public var status: SessionStatus { status(paused: false) }

    /// The mode, given whether run control paused the run; a paused run whose loop died is complete. The server's
    /// SIGSTOP pause wins over a hook suspension (the loop is frozen either way; resume undoes the pause first).
    public func mode(paused: Bool) -> SessionMode {
        guard isLive else { return .complete }
        if paused { return .paused }
        return isSuspended ? .suspended : .live
    }

    /// The status, given whether run control paused the run.
    public func status(paused: Bool) -> SessionStatus {
        if paused && isLive { return .paused }
        if isLive { return isSuspended ? .suspended : .running }
        return LoopTerminate.status(forReason: stopReason?.reason ?? "exited")
    }

    /// Why the run is not running (nil while live).
    public var stopReason: StopReason? {
        if isLive { return nil }
        if let termination = summary.termination { return termination }
        let message = isCurrent
            ? "The loop is not running and wrote no loop.terminate record."
            : "A newer run replaced this one before it wrote a loop.terminate record."
        return StopReason(reason: "exited", message: message, at: summary.lastEventDate.map(Timestamp.format))
    }

    public var startDate: Date? { summary.firstEventDate ?? fileStartedAt }

    /// Whether a lifecycle hook holds the live loop suspended (`.ralph/suspend-state.json`).
    public var isSuspended: Bool { isLive && liveness.suspension != nil }

    /// The stop to show: the one run control recorded (`stop`, kept after the end), or a graceful one pending in the
    /// files (`.ralph/stop-requested`, e.g. from `ralph loops stop`) while the loop runs.
    public func stopRequest(recorded stop: StopRequest?) -> StopRequest? {
        if let stop { return stop }
        guard isLive, let at = liveness.stopRequestedAt else { return nil }
        return StopRequest(kind: StopRequest.graceful, at: Timestamp.format(at))
    }

    /// The topic that put the current hat to work: that of the latest hat transition into it (while the run's details
    /// are in memory: live runs, and finished ones a client looked at).
    public var triggerEvent: String? {
        guard let hat = summary.hat else { return nil }
        return details?.hatFlow.last { $0.to == hat }?.topic
    }

    /// The list/status representation, given whether run control paused the run and the stop it recorded for it.
    public func session(paused: Bool, stop: StopRequest? = nil, now: Date = Date()) -> Session {
        let start = startDate ?? now
        let end = isLive ? now : (summary.lastEventDate ?? start)
        let effective = runConfig ?? config
        return Session(
            id: id, iteration: summary.iteration, total: effective?.maxIterations, hat: summary.hat,
            elapsedSecs: max(0, Int(end.timeIntervalSince(start))), mode: mode(paused: paused), status: status(paused: paused),
            startedAt: Timestamp.format(start), lastEventAt: summary.lastEventDate.map(Timestamp.format) ?? summary.lastEventAt,
            eventCount: summary.eventCount, taskName: summary.taskName, workspace: location.relativeWorkspace,
            path: location.relativeFile, pid: isLive ? liveness.pid : nil, stopRequested: stopRequest(recorded: stop),
            suspension: isSuspended ? liveness.suspension : nil, pausedBy: paused && isLive ? Session.pausedByServer : nil,
            triggerEvent: triggerEvent, publishes: summary.hat.flatMap { effective?.hatPublishes[$0] }
        )
    }

    /// How long ralph is assumed to wait for an answer when the config does not say (the original server's value).
    public static let defaultQuestionTimeout: TimeInterval = 300

    /// The question ralph is waiting on, in the original `PendingQuestion` shape: only while the run is live and its
    /// timeout has not passed.
    public func pendingQuestion(now: Date = Date()) -> PendingQuestion? {
        if liveness.robot.question != nil, let web = webPendingQuestion(now: now) { return web }
        // In web mode ralph reads answers only from robot-response.json: until its question file is there, there is
        // nothing to answer.
        if config?.robotWebMode == true { return nil }
        guard isLive, let event = summary.pendingQuestion else { return nil }
        let asked = event.date ?? startDate ?? now
        let configured = config?.robotTimeoutSeconds.map(Double.init)
        let deadline = asked.addingTimeInterval(configured ?? Self.defaultQuestionTimeout)
        if deadline < now { return nil }
        return PendingQuestion(
            id: "\(id)-\(event.id)", questionText: event.payloadText ?? "", sessionId: id, askedAt: Timestamp.format(asked),
            timeoutAt: Timestamp.format(deadline), timeoutEstimated: configured == nil, iteration: event.iteration ?? summary.iteration,
            hat: event.hat ?? summary.hat, eventId: event.id
        )
    }

    /// Parses `events-YYYYMMDD-HHMMSS.jsonl` (UTC).
    public static func dateFromFileName(_ name: String) -> Date? {
        guard name.hasPrefix(RalphLayout.runFilePrefix), name.hasSuffix(RalphLayout.runFileSuffix) else { return nil }
        let stamp = Array(name.dropFirst(RalphLayout.runFilePrefix.count).dropLast(RalphLayout.runFileSuffix.count))
        guard stamp.count == 15, stamp[8] == "-", stamp.enumerated().allSatisfy({ $0.offset == 8 || $0.element.isNumber }) else { return nil }
        let d = stamp.filter(\.isNumber).map(String.init).joined()
        func part(_ from: Int, _ length: Int) -> String {
            String(d[d.index(d.startIndex, offsetBy: from)..<d.index(d.startIndex, offsetBy: from + length)])
        }
        let text = "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(8, 2)):\(part(10, 2)):\(part(12, 2))Z"
        return Timestamp.parse(text)
    }
}

/// An immutable box for a large part of a ``RunSnapshot`` that is often absent or the same for many runs.
///
/// Snapshots are copied whole wherever they go (the catalog's table, every list request's array of all of them, the
/// changes observers hear), so their inline size counts a thousand times over in a large workspace: the 400 bytes of a
/// ``WorkspaceLiveness`` — the same value for every run of a workspace — and the 180 of ``RunDetails`` — dropped for
/// finished runs — are a word each when boxed. Replaced, never changed, so copies share a box safely.
final class SnapshotBox<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}

/// The boxes a new snapshot starts with (one for all of them).
let emptyDetailsBox = SnapshotBox(RunDetails())
let emptyLivenessBox = SnapshotBox(WorkspaceLiveness())

/// The JSON an event is sent as (`data:` of a `workflow` frame, items of `recent_events`).
///
/// Every field of the line is kept in order; `id` (string) comes first; a non-string `payload` is given as a compact
/// JSON string in `payload` and kept as JSON in `payload_json` (the RalphMobile client decodes only string payloads);
/// `type` defaults to `event.published`.
public enum WorkflowPayload {
    public static func object(_ event: RalphEvent) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("id", .string(String(event.id)))]
        members.reserveCapacity(event.fields.count + 3)
        var payloadJSON: JSONValue?
        var hasType = false
        for member in event.fields.members {
            switch member.key {
            case "id":
                // The line's own id (if any) must not shadow the event id clients resume from.
                members.append(("line_id", member.value))
            case "payload":
                switch member.value {
                case .string, .null: members.append(member)
                default:
                    members.append(("payload", .string(JSONWriter.string(member.value))))
                    payloadJSON = member.value
                }
            case "payload_json":
                continue
            case "type":
                hasType = true
                members.append(member)
            default:
                members.append(member)
            }
        }
        if let payloadJSON { members.append(("payload_json", payloadJSON)) }
        if !hasType { members.append(("type", "event.published")) }
        return .object(JSONObject(members))
    }
}
