import Foundation
import NIOCore
import RalphAPI
import RalphFiles
import Synchronization

/// Turns the catalog's changes into frames: each run's `workflow` frames (and state frames) on a ``Fanout`` keyed by
/// run id, and session summaries on the ``GlobalFeed``.
///
/// It hears the catalog on the catalog's thread: every event is encoded there once, before any lock, into a frame that
/// every subscriber shares; the fan-out's lock only appends to queues.
final class EventHub: RunCatalogObserver, Sendable {
    /// Per-run streams: positions are line numbers of the run's events file.
    let runs: Fanout<String>
    /// The global stream.
    let global: GlobalFeed
    /// Runs whose session detail is to be sent as a state frame (see ``runStateFeed(details:)``).
    let stateQueue = StateQueue()
    /// Runs run control has paused (it tells ``pauseChanged(id:paused:current:)``): a session's mode is the files'
    /// view plus this.
    private let paused = Mutex<Set<String>>([])
    /// Stops run control recorded (it tells ``stopChanged(id:request:current:)``), shown on the sessions announced.
    private let stops = Mutex<[String: StopRequest]>([:])

    /// A session as this server shows it (in a cluster, named with its host).
    private let stamp: @Sendable (Session) -> Session
    /// A conversation as this server shows it (in a cluster, named with its host).
    private let stampConversation: @Sendable (Conversation) -> Conversation

    init(
        queueBytes: Int, queueFrames: Int, globalLogCapacity: Int = 4096, stamp: @escaping @Sendable (Session) -> Session = { $0 },
        stampConversation: @escaping @Sendable (Conversation) -> Conversation = { $0 }
    ) {
        self.stamp = stamp
        self.stampConversation = stampConversation
        runs = Fanout(queueBytes: queueBytes, queueFrames: queueFrames)
        global = GlobalFeed(queueBytes: queueBytes, queueFrames: queueFrames, logCapacity: globalLogCapacity)
    }

    /// Distinguishes this server process in global-stream ids.
    var epoch: String { global.epoch }

    // MARK: - Catalog changes

    func catalogDidChange(_ change: RunCatalog.Change) {
        switch change {
        case .added(let snapshot):
            runs.open(snapshot.id, head: snapshot.state.lineCount, generation: snapshot.generation, isLive: snapshot.isLive, replace: true)
            announce(snapshot, as: StreamEventName.sessionAdded)
        case .appended(let snapshot, let events):
            guard runs.head(snapshot.id) != nil else { return }
            let frames = events.map { (position: $0.id, frame: SSEFrame.workflow($0)) }
            publish(snapshot, frames: frames, head: snapshot.state.lineCount)
        case .updated(let snapshot):
            guard runs.head(snapshot.id) != nil else { return }
            // Liveness or configuration only: the head moves with `appended` alone (its lines may not be announced yet).
            publish(snapshot, frames: [], head: nil)
        case .reset(let snapshot):
            guard runs.head(snapshot.id) != nil else { return }
            // Ids restarted: connected clients must start over; they reconnect and are replayed the new file.
            runs.restart(snapshot.id, head: snapshot.state.lineCount, generation: snapshot.generation, isLive: snapshot.isLive)
            announce(snapshot, as: StreamEventName.sessionUpdated)
        case .removed(let id):
            runs.remove(id) { head in
                let end = StreamEnd(mode: .complete, status: .stopped, reason: "removed", lastEventId: head, ts: Timestamp.now())
                return SSEFrame.event(id: nil, name: StreamEventName.end, value: end)
            }
            global.remove(sessionID: id)
        }
    }

    /// New lines (or none) and the run's liveness: frames to the run's subscribers — the `end` frame too when the run
    /// is over, held for those taking state frames until their final state is sent — and the summary to the global
    /// stream.
    private func publish(_ snapshot: RunSnapshot, frames: [(position: Int, frame: ByteBuffer)], head: Int?) {
        let end = snapshot.isLive ? nil : Self.endFrame(for: snapshot)
        runs.publish(snapshot.id, frames: frames, head: head, end: end, holdEndForState: true)
        if runs.stateInterest(snapshot.id).any { stateQueue.mark(snapshot.id, changed: true) }
        announce(snapshot, as: StreamEventName.sessionUpdated)
    }

    /// Announces a run's session on the global stream, paused as run control last said.
    private func announce(_ snapshot: RunSnapshot, as name: String) {
        global.announce(as: name) { session(of: snapshot) }
    }

    /// A run's session, paused and stopped as run control last said.
    private func session(of snapshot: RunSnapshot) -> Session {
        stamp(snapshot.session(paused: paused.withLock { $0.contains(snapshot.id) }, stop: stops.withLock { $0[snapshot.id] }))
    }

    /// Run control paused or resumed a run: its session is announced again (read from `current`, the catalog's latest
    /// snapshot, under the announcers' lock), and its state-frame subscribers get the new detail.
    func pauseChanged(id: String, paused isPaused: Bool, current: @escaping () -> RunSnapshot?) {
        paused.withLock { set in
            if isPaused { set.insert(id) } else { set.remove(id) }
        }
        guard runs.head(id) != nil else { return }
        global.announce(as: StreamEventName.sessionUpdated) { current().map(session(of:)) }
        if runs.stateInterest(id).any { stateQueue.mark(id, changed: true) }
    }

    /// Run control recorded a stop (graceful or forced): the session is announced again with it, as for a pause.
    func stopChanged(id: String, request: StopRequest, current: @escaping () -> RunSnapshot?) {
        stops.withLock { $0[id] = request }
        guard runs.head(id) != nil else { return }
        global.announce(as: StreamEventName.sessionUpdated) { current().map(session(of:)) }
        if runs.stateInterest(id).any { stateQueue.mark(id, changed: true) }
    }

    /// The stops a previous server process recorded (read from run control's state at start).
    func knowStops(_ recorded: [String: StopRequest]) {
        stops.withLock { $0.merge(recorded) { _, new in new } }
    }

    /// The `end` frame for a run that is over.
    static func endFrame(for snapshot: RunSnapshot) -> ByteBuffer {
        let end = StreamEnd(
            mode: snapshot.mode, status: snapshot.status, reason: snapshot.stopReason?.reason, lastEventId: snapshot.state.lineCount,
            ts: Timestamp.now()
        )
        return SSEFrame.event(id: nil, name: StreamEventName.end, value: end)
    }

    // MARK: - Conversations

    /// Announces an approval that became pending or was resolved.
    func approvalChanged(_ approval: Approval) {
        global.approvalChanged(approval)
    }

    /// A session detail as this server shows it (in a cluster, its session named with its host).
    func shown(_ detail: SessionDetail) -> SessionDetail {
        var detail = detail
        detail.session = stamp(detail.session)
        return detail
    }

    /// Publishes a conversation event on the global stream (`conversation.updated`, `conversation.removed`).
    func publishConversation<T: Encodable>(name: String, value: T) {
        if let conversation = value as? Conversation {
            global.publish(name: name, value: stampConversation(conversation))
        } else {
            global.publish(name: name, value: value)
        }
    }

    // MARK: - Subscribing

    /// Subscribes to a run's stream; with `wantsState`, its state frames too (the first one soon after).
    func subscribe(runID: String, wantsState: Bool = false) -> Fanout<String>.Subscription {
        let subscription = runs.subscribe(runID, wantsState: wantsState)
        if wantsState, case .live = subscription { stateQueue.mark(runID, changed: false) }
        return subscription
    }

    func unsubscribe(_ subscription: Fanout<String>.Subscription, runID: String) {
        guard case .live(let live) = subscription else { return }
        runs.unsubscribe(runID, subscriberID: live.id)
    }

    /// A catching-up subscriber rejoined at `line` (see ``Fanout/rejoin(_:subscriberID:at:)``); one taking state frames
    /// is sent a fresh one, since those it missed while catching up are not in the file.
    func rejoin(runID: String, subscriberID: Int, at line: Int) -> Bool {
        guard runs.rejoin(runID, subscriberID: subscriberID, at: line) else { return false }
        if runs.stateInterest(runID).needing { stateQueue.mark(runID, changed: false) }
        return true
    }

    func subscribeGlobal(lastEventID: String?) -> (queue: SubscriberQueue, subscriberID: Int, initial: [ByteBuffer]) {
        global.subscribe(lastEventID: lastEventID)
    }

    func globalCatchUp(subscriberID: Int, after sequence: Int) -> [ByteBuffer] {
        global.catchUp(subscriberID: subscriberID, after: sequence)
    }

    func unsubscribeGlobal(subscriberID: Int) {
        global.unsubscribe(subscriberID: subscriberID)
    }

    // MARK: - Housekeeping

    /// Queues a heartbeat for every subscriber idle for `interval`.
    func sendHeartbeats(interval: Duration) {
        let now = ContinuousClock.now
        for queue in runs.queues + global.queues { queue.heartbeatIfIdle(now: now, interval: interval) }
    }

    /// Closes every stream (graceful shutdown).
    func closeAll() {
        runs.closeAll()
        global.closeAll()
    }

    /// Catch-ups finished since the start.
    var catchUpCount: Int { runs.catchUpCount + global.catchUpCount }

    /// Number of open subscriptions (for diagnostics and tests).
    var subscriberCount: Int { runs.subscriberCount + global.subscriberCount }
}
