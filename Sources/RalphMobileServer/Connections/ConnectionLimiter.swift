import DequeModule
import NIOCore
import Synchronization

/// Counts the connections being served and decides whether a new one is served or refused.
///
/// Up to ``maxConnections`` are served. At the limit, a new connection takes the place of the connection that has
/// waited longest without sending a byte of a request (a fresh connection that never spoke, or a keep-alive one
/// between requests; see ``IdleConnections``): that one is closed, as its idle timeout would have done, so clients
/// holding thousands of silent connections cannot keep a real request out. Only when every connection is busy
/// (reading a request, answering one, streaming) is a new one answered `503` and closed (see ``OverloadResponder``),
/// so a client learns the server is busy instead of hanging in the listen queue, and the file descriptors kept free
/// for the server's own work (run files, the database, agents' pipes) stay free. Refusing also takes a descriptor for
/// a moment: at most ``maxLingering`` refused connections wait for their client to read the answer; past that they are
/// closed right after it is written.
final class ConnectionLimiter: Sendable {
    /// What becomes of a new connection.
    enum Admission: Equatable, Sendable {
        case served
        /// Refused; `linger` says whether it may wait for its client to read the `503`.
        case refused(linger: Bool)
    }

    let maxConnections: Int
    let maxLingering: Int
    private let served = Atomic<Int>(0)
    private let lingering = Atomic<Int>(0)
    private let refusedTotal = Atomic<Int>(0)

    private let evictedTotal = Atomic<Int>(0)
    /// Served connections waiting for their client, oldest first: the ones a new connection may replace.
    let idle = IdleConnections()

    init(maxConnections: Int, maxLingering: Int = 256) {
        self.maxConnections = max(1, maxConnections)
        self.maxLingering = maxLingering
    }

    /// Decides for a new connection; every admission must be given back with ``release(_:)`` when it closes.
    func admit() -> Admission {
        if served.wrappingAdd(1, ordering: .relaxed).newValue <= maxConnections { return .served }
        // At the limit: close the connection idle the longest and serve this one in its place. The count goes one over
        // the limit until that close completes (on its own event loop), which the headroom of descriptors covers.
        if let oldest = idle.takeOldest() {
            evictedTotal.wrappingAdd(1, ordering: .relaxed)
            oldest.close(promise: nil)
            return .served
        }
        served.wrappingSubtract(1, ordering: .relaxed)
        refusedTotal.wrappingAdd(1, ordering: .relaxed)
        if lingering.wrappingAdd(1, ordering: .relaxed).newValue <= maxLingering { return .refused(linger: true) }
        lingering.wrappingSubtract(1, ordering: .relaxed)
        return .refused(linger: false)
    }

    /// A connection admitted as `admission` has closed.
    func release(_ admission: Admission) {
        switch admission {
        case .served: served.wrappingSubtract(1, ordering: .relaxed)
        case .refused(linger: true): lingering.wrappingSubtract(1, ordering: .relaxed)
        case .refused(linger: false): break
        }
    }

    /// Connections being served now.
    var servedCount: Int { served.load(ordering: .relaxed) }
    /// Connections refused since the start.
    var refusedCount: Int { refusedTotal.load(ordering: .relaxed) }
    /// Idle connections closed to make room for new ones since the start.
    var evictedCount: Int { evictedTotal.load(ordering: .relaxed) }
}

/// The served connections that are waiting for their client — connected, or between keep-alive requests, with no byte
/// of a request received — in the order they started waiting. Connections that never sent a request come first: a
/// keep-alive connection of a real client is given up only when no silent one is left.
///
/// A connection joins when it starts waiting and leaves when a byte arrives or it closes (``ConnectionDeadlineHandler``
/// tells). Leaving is O(1) (the entry is dropped from a table; its place in the queue is skipped later), so a busy
/// keep-alive connection costs a table update per request and no search; a queue is compacted when stale places
/// outnumber live ones.
final class IdleConnections: Sendable {
    private struct Queue {
        /// Each waiting connection's channel and the serial of its current wait.
        var waiting: [ObjectIdentifier: (serial: UInt64, channel: any Channel)] = [:]
        /// Waits in the order they began; a place whose serial no longer matches its table entry is stale.
        var order: Deque<(serial: UInt64, id: ObjectIdentifier)> = []

        mutating func add(_ channel: any Channel, serial: UInt64) {
            let id = ObjectIdentifier(channel)
            waiting[id] = (serial, channel)
            order.append((serial, id))
            if order.count > 2 * waiting.count + 1024 {
                order = Deque(order.filter { waiting[$0.id]?.serial == $0.serial })
            }
        }

        mutating func takeOldest() -> (any Channel)? {
            while let first = order.popFirst() {
                if let entry = waiting[first.id], entry.serial == first.serial {
                    waiting[first.id] = nil
                    return entry.channel
                }
            }
            return nil
        }
    }

    private struct State {
        /// Connections that have not sent a request yet.
        var silent = Queue()
        /// Keep-alive connections between requests.
        var keptAlive = Queue()
        var nextSerial: UInt64 = 0
    }

    private let state = Mutex(State())

    /// `channel` started waiting for its client; `servedBefore` when it has sent a request already.
    func started(_ channel: any Channel, servedBefore: Bool) {
        state.withLock { state in
            state.nextSerial += 1
            if servedBefore {
                state.keptAlive.add(channel, serial: state.nextSerial)
            } else {
                state.silent.add(channel, serial: state.nextSerial)
            }
        }
    }

    /// `channel` stopped waiting (bytes came) or closed.
    func ended(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            state.silent.waiting[id] = nil
            state.keptAlive.waiting[id] = nil
        }
    }

    /// Removes and returns the connection to give up for a new one: the silent one that waited longest, else the
    /// keep-alive one that did.
    func takeOldest() -> (any Channel)? {
        state.withLock { state in state.silent.takeOldest() ?? state.keptAlive.takeOldest() }
    }

    /// Connections waiting now.
    var count: Int { state.withLock { $0.silent.waiting.count + $0.keptAlive.waiting.count } }
}
