import Synchronization

/// Counts the connections being served and decides whether a new one is served or refused.
///
/// Up to ``maxConnections`` are served. Beyond, a connection is answered `503` and closed (see ``OverloadResponder``),
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

    init(maxConnections: Int, maxLingering: Int = 256) {
        self.maxConnections = max(1, maxConnections)
        self.maxLingering = maxLingering
    }

    /// Decides for a new connection; every admission must be given back with ``release(_:)`` when it closes.
    func admit() -> Admission {
        if served.wrappingAdd(1, ordering: .relaxed).newValue <= maxConnections { return .served }
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
}
