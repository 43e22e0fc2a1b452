import DequeModule
import Foundation
import NIOCore
import RalphAPI
import RalphFiles
import Synchronization

/// Fans catalog changes out to SSE subscribers: per-run `workflow` streams and the global `/api/events` stream.
///
/// Each event is encoded once into a frame that every subscriber shares. Subscribing and delivering happen under one
/// lock together with the run's last delivered id, which is what makes "replay up to that id from the file, then
/// live" gap-free and duplicate-free.
final class EventHub: RunCatalogObserver, Sendable {
    struct RunChannel {
        /// Id of the last line delivered live (the run's line count when last announced).
        var lastLine: Int
        var generation: Int
        var isLive: Bool
        var subscribers: [Int: SubscriberQueue] = [:]
    }

    struct GlobalEntry {
        var sequence: Int
        var frame: ByteBuffer
    }

    struct State {
        var runs: [String: RunChannel] = [:]
        /// Last announced summary per session.
        var sessions: [String: Session] = [:]
        var nextSubscriberID = 0
        /// Catch-ups finished (subscribers that fell behind, read the durable log and rejoined), for diagnostics.
        var catchUps = 0
        var globalSequence = 0
        var globalLog = Deque<GlobalEntry>()
        var globalSubscribers: [Int: SubscriberQueue] = [:]
        /// Runs run control has paused (it tells ``pauseChanged(id:paused:current:)``).
        var paused: Set<String> = []
        /// Approvals waiting for a person, sent to every new global subscriber.
        var pendingApprovals: [String: Approval] = [:]
    }

    /// Outcome of subscribing to a run.
    enum RunSubscription {
        /// The run is live: replay up to `lastLine` from the file, then read `queue`.
        case live(queue: SubscriberQueue, subscriberID: Int, lastLine: Int, generation: Int)
        /// The run is over: replay up to `lastLine`, then send the end frame.
        case finished(lastLine: Int, generation: Int)
        case unknown

        /// The id up to which the file must be replayed.
        var lastLine: Int {
            switch self {
            case .live(_, _, let line, _), .finished(let line, _): line
            case .unknown: 0
            }
        }
    }

    /// Distinguishes this server process in global-stream ids (`<epoch>-<sequence>`).
    let epoch: String
    /// Bounds of each subscriber's queue (see ``SubscriberQueue``).
    let queueBytes: Int
    let queueFrames: Int
    let globalLogCapacity: Int
    private let state = Mutex(State())

    init(queueBytes: Int, queueFrames: Int, globalLogCapacity: Int = 4096) {
        self.queueBytes = queueBytes
        self.queueFrames = queueFrames
        self.globalLogCapacity = globalLogCapacity
        self.epoch = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    // MARK: - Catalog changes

    func catalogDidChange(_ change: RunCatalog.Change) {
        switch change {
        case .added(let snapshot):
            state.withLock { state in
                state.runs[snapshot.id] = RunChannel(lastLine: snapshot.state.lineCount, generation: snapshot.generation, isLive: snapshot.isLive)
                announce(snapshot, as: StreamEventName.sessionAdded, state: &state)
            }
        case .appended(let snapshot, let events):
            let frames = events.map { (id: $0.id, frame: SSEFrame.workflow($0)) }
            let end = snapshot.isLive ? nil : Self.endFrame(for: snapshot)
            state.withLock { state in
                guard var channel = state.runs[snapshot.id] else { return }
                let fresh = frames.filter { $0.id > channel.lastLine }.map { (position: $0.id, frame: $0.frame) }
                for (id, queue) in channel.subscribers where !queue.push(contentsOf: fresh) {
                    channel.subscribers[id] = nil
                }
                channel.lastLine = max(channel.lastLine, snapshot.state.lineCount)
                channel.isLive = snapshot.isLive
                if let end { endSubscribers(of: &channel, with: end) }
                state.runs[snapshot.id] = channel
                announce(snapshot, as: StreamEventName.sessionUpdated, state: &state)
            }
        case .updated(let snapshot):
            let end = snapshot.isLive ? nil : Self.endFrame(for: snapshot)
            state.withLock { state in
                guard var channel = state.runs[snapshot.id] else { return }
                channel.isLive = snapshot.isLive
                if let end { endSubscribers(of: &channel, with: end) }
                state.runs[snapshot.id] = channel
                announce(snapshot, as: StreamEventName.sessionUpdated, state: &state)
            }
        case .reset(let snapshot):
            state.withLock { state in
                guard var channel = state.runs[snapshot.id] else { return }
                // Ids restarted: connected clients must start over; they reconnect and are replayed the new file.
                for queue in channel.subscribers.values { queue.close() }
                channel.subscribers = [:]
                channel.lastLine = snapshot.state.lineCount
                channel.generation = snapshot.generation
                channel.isLive = snapshot.isLive
                state.runs[snapshot.id] = channel
                announce(snapshot, as: StreamEventName.sessionUpdated, state: &state)
            }
        case .removed(let id):
            state.withLock { state in
                if var channel = state.runs.removeValue(forKey: id) {
                    let end = StreamEnd(mode: .complete, status: .stopped, reason: "removed", lastEventId: channel.lastLine, ts: Timestamp.now())
                    endSubscribers(of: &channel, with: SSEFrame.event(id: nil, name: StreamEventName.end, value: end))
                }
                state.sessions[id] = nil
                publishGlobal(name: StreamEventName.sessionRemoved, value: SessionRemoved(id: id), state: &state)
            }
        }
    }

    private func endSubscribers(of channel: inout RunChannel, with frame: ByteBuffer) {
        for queue in channel.subscribers.values { queue.end(with: frame) }
        channel.subscribers = [:]
    }

    /// The `end` frame for a run that is over.
    static func endFrame(for snapshot: RunSnapshot) -> ByteBuffer {
        let end = StreamEnd(
            mode: snapshot.mode, status: snapshot.status, reason: snapshot.stopReason?.reason, lastEventId: snapshot.state.lineCount,
            ts: Timestamp.now()
        )
        return SSEFrame.event(id: nil, name: StreamEventName.end, value: end)
    }

    /// Announces a session on the global stream, unless nothing but its age changed.
    private func announce(_ snapshot: RunSnapshot, as name: String, state: inout State) {
        let session = snapshot.session(paused: state.paused.contains(snapshot.id))
        let previous = state.sessions[snapshot.id]
        if let previous, Self.sameExceptAge(previous, session) { return }
        state.sessions[snapshot.id] = session
        publishGlobal(name: previous == nil ? StreamEventName.sessionAdded : name, value: session, state: &state)
    }

    /// Run control paused or resumed a run: re-announces its session. `current` reads the catalog's snapshot under
    /// this hub's lock, so what is announced is never older than what was announced before.
    func pauseChanged(id: String, paused: Bool, current: () -> RunSnapshot?) {
        state.withLock { state in
            if paused { state.paused.insert(id) } else { state.paused.remove(id) }
            guard state.runs[id] != nil, let snapshot = current() else { return }
            announce(snapshot, as: StreamEventName.sessionUpdated, state: &state)
        }
    }

    static func sameExceptAge(_ a: Session, _ b: Session) -> Bool {
        var a = a
        a.elapsedSecs = b.elapsedSecs
        return a == b
    }

    // MARK: - Conversations

    /// Announces an approval that became pending or was resolved.
    func approvalChanged(_ approval: Approval) {
        state.withLock { state in
            let pending = approval.state == .pending
            let known = state.pendingApprovals[approval.id] != nil
            if pending {
                state.pendingApprovals[approval.id] = approval
                guard !known else { return }
                publishGlobal(name: ChatEventName.approvalPending, value: approval, state: &state)
            } else {
                state.pendingApprovals[approval.id] = nil
                guard known else { return }
                publishGlobal(name: ChatEventName.approvalResolved, value: approval, state: &state)
            }
        }
    }

    /// Publishes a conversation event on the global stream (`conversation.updated`, `conversation.removed`).
    func publishConversation<T: Encodable>(name: String, value: T) {
        state.withLock { state in publishGlobal(name: name, value: value, state: &state) }
    }

    private func publishGlobal<T: Encodable>(name: String, value: T, state: inout State) {
        state.globalSequence += 1
        let frame = SSEFrame.event(id: "\(epoch)-\(state.globalSequence)", name: name, value: value)
        state.globalLog.append(GlobalEntry(sequence: state.globalSequence, frame: frame))
        if state.globalLog.count > globalLogCapacity { state.globalLog.removeFirst(state.globalLog.count - globalLogCapacity) }
        for (id, queue) in state.globalSubscribers where !queue.push(frame, position: state.globalSequence) {
            state.globalSubscribers[id] = nil
        }
    }

    // MARK: - Subscribing

    /// Subscribes to a run's live events.
    func subscribe(runID: String) -> RunSubscription {
        state.withLock { state in
            guard var channel = state.runs[runID] else { return .unknown }
            guard channel.isLive else { return .finished(lastLine: channel.lastLine, generation: channel.generation) }
            state.nextSubscriberID += 1
            let id = state.nextSubscriberID
            let queue = SubscriberQueue(byteBudget: queueBytes, frameLimit: queueFrames, position: channel.lastLine)
            channel.subscribers[id] = queue
            state.runs[runID] = channel
            return .live(queue: queue, subscriberID: id, lastLine: channel.lastLine, generation: channel.generation)
        }
    }

    /// The id of the last event delivered live on a run (how far a catching-up subscriber must read), nil for a run
    /// that is gone.
    func head(runID: String) -> Int? {
        state.withLock { $0.runs[runID]?.lastLine }
    }

    /// A catching-up subscriber read the file through `line`: if that is still the head, it takes live frames again
    /// (true); if more arrived meanwhile, it must read on (false). True as well once it no longer subscribes (the run
    /// ended or went away: what follows is in its queue).
    func rejoin(runID: String, subscriberID: Int, at line: Int) -> Bool {
        state.withLock { state in
            guard let channel = state.runs[runID], let queue = channel.subscribers[subscriberID] else { return true }
            guard channel.lastLine == line else { return false }
            queue.rejoin(at: line)
            state.catchUps += 1
            return true
        }
    }

    func unsubscribe(_ subscription: RunSubscription, runID: String) {
        guard case .live(_, let subscriberID, _, _) = subscription else { return }
        state.withLock { _ = $0.runs[runID]?.subscribers.removeValue(forKey: subscriberID) }
    }

    /// Subscribes to the global stream. `initial` is what to send first: the missed entries when `lastEventID` is
    /// recent enough, else every session as `session.added`; then a `ready` frame carrying the current id.
    func subscribeGlobal(lastEventID: String?) -> (queue: SubscriberQueue, subscriberID: Int, initial: [ByteBuffer]) {
        state.withLock { state in
            var initial: [ByteBuffer] = []
            var resumed = false
            if let lastEventID, let sequence = parseGlobalID(lastEventID), sequence <= state.globalSequence,
                sequence >= (state.globalLog.first?.sequence ?? state.globalSequence + 1) - 1
            {
                initial = state.globalLog.filter { $0.sequence > sequence }.map(\.frame)
                resumed = true
            } else {
                initial = snapshot(state: state)
            }
            initial.append(readyFrame(resumed: resumed, state: state))
            state.nextSubscriberID += 1
            let id = state.nextSubscriberID
            let queue = SubscriberQueue(byteBudget: queueBytes, frameLimit: queueFrames, position: state.globalSequence)
            state.globalSubscribers[id] = queue
            return (queue, id, initial)
        }
    }

    /// What a global subscriber that fell behind missed after `sequence`: the entries of the global log, or — when the
    /// log no longer reaches back that far — every session and pending approval again and a `ready` frame, as for a new
    /// subscriber. It rejoins the live feed in the same step, so the frames returned come right before what it queues
    /// next.
    func globalCatchUp(subscriberID: Int, after sequence: Int) -> [ByteBuffer] {
        state.withLock { state in
            let frames: [ByteBuffer]
            if sequence >= (state.globalLog.first?.sequence ?? state.globalSequence + 1) - 1 {
                frames = state.globalLog.filter { $0.sequence > sequence }.map(\.frame)
            } else {
                frames = snapshot(state: state) + [readyFrame(resumed: false, state: state)]
            }
            state.globalSubscribers[subscriberID]?.rejoin(at: state.globalSequence)
            state.catchUps += 1
            return frames
        }
    }

    /// Every session as `session.added` and every pending approval as `approval.pending`.
    private func snapshot(state: State) -> [ByteBuffer] {
        var frames: [ByteBuffer] = []
        let sessions = state.sessions.values.sorted { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }
        let now = Date()
        for var session in sessions {
            if let started = Timestamp.parse(session.startedAt), session.mode == .live {
                session.elapsedSecs = max(0, Int(now.timeIntervalSince(started)))
            }
            frames.append(SSEFrame.event(id: nil, name: StreamEventName.sessionAdded, value: session))
        }
        for approval in state.pendingApprovals.values.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            frames.append(SSEFrame.event(id: nil, name: ChatEventName.approvalPending, value: approval))
        }
        return frames
    }

    /// The `ready` frame, carrying the current id.
    private func readyFrame(resumed: Bool, state: State) -> ByteBuffer {
        SSEFrame.event(id: "\(epoch)-\(state.globalSequence)", name: "ready", value: GlobalReady(sessions: state.sessions.count, resumed: resumed))
    }

    func unsubscribeGlobal(subscriberID: Int) {
        state.withLock { _ = $0.globalSubscribers.removeValue(forKey: subscriberID) }
    }

    private func parseGlobalID(_ text: String) -> Int? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0] == epoch else { return nil }
        return Int(parts[1])
    }

    // MARK: - Housekeeping

    /// Queues a heartbeat for every subscriber idle for `interval`.
    func sendHeartbeats(interval: Duration) {
        let queues = state.withLock { state in
            state.runs.values.flatMap { $0.subscribers.values } + Array(state.globalSubscribers.values)
        }
        let now = ContinuousClock.now
        for queue in queues { queue.heartbeatIfIdle(now: now, interval: interval) }
    }

    /// Closes every stream (graceful shutdown).
    func closeAll() {
        let queues = state.withLock { state -> [SubscriberQueue] in
            let all = state.runs.values.flatMap { $0.subscribers.values } + Array(state.globalSubscribers.values)
            for key in state.runs.keys { state.runs[key]!.subscribers = [:] }
            state.globalSubscribers = [:]
            return all
        }
        for queue in queues { queue.close() }
    }

    /// Number of open subscriptions (for diagnostics and tests).
    /// Catch-ups finished since the start.
    var catchUpCount: Int { state.withLock { $0.catchUps } }

    var subscriberCount: Int {
        state.withLock { state in state.runs.values.reduce(0) { $0 + $1.subscribers.count } + state.globalSubscribers.count }
    }
}

/// Data of the global stream's `ready` frame.
struct GlobalReady: Codable {
    /// Number of sessions known.
    var sessions: Int
    /// True when missed entries were replayed, false when a full `session.added` snapshot was sent.
    var resumed: Bool
}
