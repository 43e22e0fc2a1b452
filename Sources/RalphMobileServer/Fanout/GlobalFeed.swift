import DequeModule
import Foundation
import NIOCore
import RalphAPI
import Synchronization

/// The global stream (`GET /api/events`): every session's summary as it changes, approvals waiting for a person, and
/// conversation changes, with ids `<epoch>-<sequence>`.
///
/// The recent frames are kept in memory (the global log), so a client that resumes with `Last-Event-ID` — or a
/// subscriber that fell behind its queue — gets exactly what it missed; one that resumes from too far back gets every
/// session and pending approval again. Values are encoded before the feed's lock is taken: under it, frames are only
/// numbered, logged and queued, so a thousand subscribers connecting do not wait on JSON encoding.
final class GlobalFeed: Sendable {
    struct Entry {
        var sequence: Int
        var frame: ByteBuffer
    }

    struct State {
        var sequence = 0
        var log = Deque<Entry>()
        var subscribers: [Int: SubscriberQueue] = [:]
        var nextSubscriberID = 0
        /// Last announced summary per session (the snapshot a new subscriber starts with).
        var sessions: [String: Session] = [:]
        /// Approvals waiting for a person, sent to every new subscriber.
        var pendingApprovals: [String: Approval] = [:]
        var catchUps = 0
    }

    /// What a new or far-behind subscriber starts from: the log's missed frames, or a snapshot to encode.
    enum Start {
        case resumed([ByteBuffer])
        case snapshot(sessions: [Session], approvals: [Approval])
    }

    /// Distinguishes this server process in ids (`<epoch>-<sequence>`).
    let epoch: String
    let queueBytes: Int
    let queueFrames: Int
    let logCapacity: Int
    private let state = Mutex(State())
    /// Serializes announcements (compare with what was last announced, encode, publish) without holding the feed's
    /// lock while encoding: only announcers take it.
    private let announcing = Mutex<[String: Session]>([:])

    init(queueBytes: Int, queueFrames: Int, logCapacity: Int) {
        self.queueBytes = queueBytes
        self.queueFrames = queueFrames
        self.logCapacity = logCapacity
        self.epoch = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    // MARK: - Publishing

    /// Announces a session's summary, unless nothing but its age changed since the last announcement. The first
    /// announcement of a session is always `session.added`.
    func announce(_ session: Session, as name: String) {
        announce(as: name) { session }
    }

    /// Announces the session `make` returns (nil: none), made under the announcers' lock — so two announcers that read
    /// changing state (the catalog's snapshot, run control's pause) cannot announce an older view after a newer one.
    func announce(as name: String, make: () -> Session?) {
        announcing.withLock { announced in
            guard let session = make() else { return }
            let previous = announced[session.id]
            if let previous, Self.sameExceptAge(previous, session) { return }
            announced[session.id] = session
            let payload = SSEFrame.payload(session, name: name)
            publish(name: previous == nil ? StreamEventName.sessionAdded : name, payload: payload) { $0.sessions[session.id] = session }
        }
    }

    /// A session went away: `session.removed` (nothing for one never announced).
    func remove(sessionID: String) {
        announcing.withLock { announced in
            guard announced.removeValue(forKey: sessionID) != nil else { return }
            let payload = SSEFrame.payload(SessionRemoved(id: sessionID), name: StreamEventName.sessionRemoved)
            publish(name: StreamEventName.sessionRemoved, payload: payload) { $0.sessions[sessionID] = nil }
        }
    }

    /// Announces an approval that became pending (`approval.pending`) or was resolved (`approval.resolved`), once each.
    func approvalChanged(_ approval: Approval) {
        announcing.withLock { _ in
            let pending = approval.state == .pending
            let known = state.withLock { $0.pendingApprovals[approval.id] != nil }
            guard pending != known else {
                if pending { state.withLock { $0.pendingApprovals[approval.id] = approval } }
                return
            }
            let name = pending ? ChatEventName.approvalPending : ChatEventName.approvalResolved
            publish(name: name, payload: SSEFrame.payload(approval, name: name)) { $0.pendingApprovals[approval.id] = pending ? approval : nil }
        }
    }

    /// Publishes any other event (`conversation.updated`, `conversation.removed`).
    func publish<T: Encodable>(name: String, value: T) {
        let payload = SSEFrame.payload(value, name: name)
        announcing.withLock { _ in publish(name: name, payload: payload) { _ in } }
    }

    /// Numbers, logs and queues an encoded frame, applying `update` to the snapshot state in the same step.
    private func publish(name: String, payload: Result<[UInt8], SSEFrame.EncodingFailure>, update: (inout State) -> Void) {
        state.withLock { state in
            update(&state)
            state.sequence += 1
            let frame: ByteBuffer
            switch payload {
            case .success(let data): frame = SSEFrame.event(id: "\(epoch)-\(state.sequence)", name: name, data: data)
            case .failure(let failure): frame = SSEFrame.event(id: "\(epoch)-\(state.sequence)", name: "error", data: failure.payload)
            }
            state.log.append(Entry(sequence: state.sequence, frame: frame))
            if state.log.count > logCapacity { state.log.removeFirst(state.log.count - logCapacity) }
            for (id, queue) in state.subscribers where !queue.push(frame, position: state.sequence) {
                state.subscribers[id] = nil
            }
        }
    }

    static func sameExceptAge(_ a: Session, _ b: Session) -> Bool {
        var a = a
        a.elapsedSecs = b.elapsedSecs
        return a == b
    }

    // MARK: - Subscribing

    /// Subscribes. `initial` is what to send first: the missed frames when `lastEventID` is recent enough, else every
    /// session as `session.added` and every pending approval; then a `ready` frame carrying the current id.
    func subscribe(lastEventID: String?) -> (queue: SubscriberQueue, subscriberID: Int, initial: [ByteBuffer]) {
        let (queue, id, start, sequence, count) = state.withLock { state in
            var start = Self.snapshot(of: state)
            if let lastEventID, let after = parseID(lastEventID), after <= state.sequence, let missed = Self.missed(after: after, in: state) {
                start = .resumed(missed)
            }
            state.nextSubscriberID += 1
            let queue = SubscriberQueue(byteBudget: queueBytes, frameLimit: queueFrames, position: state.sequence)
            state.subscribers[state.nextSubscriberID] = queue
            return (queue, state.nextSubscriberID, start, state.sequence, state.sessions.count)
        }
        return (queue, id, frames(for: start, sequence: sequence, sessions: count))
    }

    /// What a subscriber that fell behind missed after `sequence` (as for a new subscriber when the log no longer
    /// reaches back that far). It rejoins the live feed in the same step, so these frames come right before what it
    /// queues next.
    func catchUp(subscriberID: Int, after sequence: Int) -> [ByteBuffer] {
        let (start, current, count) = state.withLock { state in
            let start = Self.missed(after: sequence, in: state).map(Start.resumed) ?? Self.snapshot(of: state)
            state.subscribers[subscriberID]?.rejoin(at: state.sequence)
            state.catchUps += 1
            return (start, state.sequence, state.sessions.count)
        }
        if case .resumed(let frames) = start { return frames }
        return frames(for: start, sequence: current, sessions: count)
    }

    func unsubscribe(subscriberID: Int) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: subscriberID) }
    }

    /// The log's frames after `sequence`, nil when the log no longer reaches back that far.
    private static func missed(after sequence: Int, in state: State) -> [ByteBuffer]? {
        guard sequence >= (state.log.first?.sequence ?? state.sequence + 1) - 1 else { return nil }
        return state.log.filter { $0.sequence > sequence }.map(\.frame)
    }

    private static func snapshot(of state: State) -> Start {
        .snapshot(sessions: Array(state.sessions.values), approvals: Array(state.pendingApprovals.values))
    }

    /// The initial frames (encoded outside the lock): a snapshot's sessions (newest first, live ones with their age
    /// now) and approvals (oldest first), or the missed frames; then `ready`.
    private func frames(for start: Start, sequence: Int, sessions count: Int) -> [ByteBuffer] {
        var frames: [ByteBuffer] = []
        let resumed: Bool
        switch start {
        case .resumed(let missed):
            frames = missed
            resumed = true
        case .snapshot(let sessions, let approvals):
            let now = Date()
            for var session in sessions.sorted(by: { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }) {
                if let started = Timestamp.parse(session.startedAt), session.mode == .live {
                    session.elapsedSecs = max(0, Int(now.timeIntervalSince(started)))
                }
                frames.append(SSEFrame.event(id: nil, name: StreamEventName.sessionAdded, value: session))
            }
            for approval in approvals.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
                frames.append(SSEFrame.event(id: nil, name: ChatEventName.approvalPending, value: approval))
            }
            resumed = false
        }
        frames.append(SSEFrame.event(id: "\(epoch)-\(sequence)", name: "ready", value: GlobalReady(sessions: count, resumed: resumed)))
        return frames
    }

    private func parseID(_ text: String) -> Int? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0] == epoch else { return nil }
        return Int(parts[1])
    }

    // MARK: - Housekeeping

    var queues: [SubscriberQueue] { state.withLock { Array($0.subscribers.values) } }

    func closeAll() {
        let queues = state.withLock { state -> [SubscriberQueue] in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for queue in queues { queue.close() }
    }

    var catchUpCount: Int { state.withLock { $0.catchUps } }
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    var sessionCount: Int { state.withLock { $0.sessions.count } }
}

/// Data of the global stream's `ready` frame.
struct GlobalReady: Codable {
    /// Number of sessions known.
    var sessions: Int
    /// True when missed entries were replayed, false when a full `session.added` snapshot was sent.
    var resumed: Bool
}
