/// The state of a long-lived event-stream connection, as shown to users.
public enum ConnectionState: Sendable, Equatable {
    /// Not connected and not trying to (before start, or after stop / end of stream).
    case disconnected
    /// A connection attempt is in progress.
    case connecting
    /// The server answered with an event stream.
    case connected
    /// Waiting before the next attempt; `attempt` counts the failures since the last successful connection.
    case reconnecting(attempt: Int)
    /// Gave up for good.
    case error(String)

    /// The reconnection attempts a screen shows once this state arrives, `shown` being what it showed before: the
    /// attempt while reconnecting, none once connected, else unchanged (a screen keeps the count of its last trouble).
    public func reconnectAttempts(after shown: Int) -> Int {
        switch self {
        case .reconnecting(let attempt): attempt
        case .connected: 0
        default: shown
        }
    }
}

/// How a ``ReconnectMachine`` waits between attempts and detects dead streams.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The delay after the first failure (doubled after each further failure).
    public var initialDelay: Duration = .seconds(1)
    /// The longest delay between two attempts.
    public var maxDelay: Duration = .seconds(30)
    /// Each delay is multiplied by a factor in [1 - jitter, 1 + jitter], then capped at maxDelay.
    public var jitter: Double = 0.2
    /// No bytes (event or heartbeat comment) for this long means the connection is dead.
    public var deadStreamTimeout: Duration = .seconds(45)

    /// The default policy: 1 s doubling up to 30 s, ±20 % jitter, 45 s dead-stream timeout.
    public init() {}
}

/// The reconnect and backoff logic of a long-lived SSE connection, as a value-type state machine.
///
/// The driver feeds it ``Input``s with the current time and performs the returned ``Action``s
/// in order (opening and closing connections, scheduling a `.tick`, publishing the state).
/// The machine never reads a clock itself, so tests pass time explicitly.
///
/// An early `.tick` (before the pending deadline) is answered with a fresh `.wakeUp` for that
/// deadline, so a driver that keeps a single timer never loses it.
public struct ReconnectMachine: Sendable {
    /// Something that happened.
    public enum Input: Sendable, Equatable {
        /// Begin connecting (only from the initial disconnected state).
        case start
        /// The server answered 200 with an event stream.
        case connectionOpened
        /// An event arrived (a non-nil id becomes lastEventID; an empty id clears it).
        case received(eventID: String?)
        /// A comment arrived (activity only).
        case heartbeat
        /// A `retry:` field: becomes the base delay (clamped to 0.1 s … maxDelay).
        case retryAdvice(Duration)
        /// Could not connect, non-fatal HTTP error, or error mid-stream.
        case connectionFailed(String)
        /// 401/403/404 and the like: give up.
        case fatal(String)
        /// The server closed the stream without `end`.
        case streamClosed
        /// The server sent `end`: finished, never reconnect.
        case ended
        /// A timer the machine asked for has fired (or any time check).
        case tick
        /// The client stops.
        case stop
    }

    /// Something the driver must do, in the order returned.
    public enum Action: Sendable, Equatable {
        /// Open a connection (with Last-Event-ID when non-nil).
        case connect(lastEventID: String?)
        /// Drop the current connection.
        case closeConnection
        /// Feed `.tick` at (or after) this instant; replaces any earlier request.
        case wakeUp(at: ContinuousClock.Instant)
        /// Publish the new connection state.
        case state(ConnectionState)
        /// Done for good: no more actions will follow.
        case finish
    }

    /// The current connection state.
    public private(set) var state: ConnectionState = .disconnected
    /// The ID to resume from (sent as Last-Event-ID), or nil.
    public private(set) var lastEventID: String?
    /// Failed attempts since the last successful connection.
    public private(set) var attempt: Int = 0
    /// True once `.finish` has been returned; every later input returns [].
    public private(set) var isFinished: Bool = false

    private let policy: ReconnectPolicy
    /// initialDelay, or the last retry advice.
    private var baseDelay: Duration
    /// The last activity on the current connection (while connected).
    private var lastActivity: ContinuousClock.Instant?
    /// When the next attempt is due (while reconnecting).
    private var retryAt: ContinuousClock.Instant?
    private var random: JitterGenerator

    /// Creates a machine in the disconnected state.
    /// - Parameters:
    ///   - policy: delays and timeouts.
    ///   - lastEventID: the ID to resume from on the first connection, if any.
    ///   - seed: seeds the jitter generator; pass a fixed value for reproducible delays.
    public init(policy: ReconnectPolicy = ReconnectPolicy(), lastEventID: String? = nil, seed: UInt64 = UInt64.random(in: .min ... .max)) {
        self.policy = policy
        self.lastEventID = lastEventID
        self.baseDelay = policy.initialDelay
        self.random = JitterGenerator(seed: seed)
    }

    /// Handles one input at time `now`; returns the actions to perform, in order.
    public mutating func handle(_ input: Input, now: ContinuousClock.Instant) -> [Action] {
        guard !isFinished else { return [] }
        switch input {
        case .start:
            guard state == .disconnected else { return [] }
            return beginAttempt()

        case .connectionOpened:
            guard state == .connecting else { return [] }
            attempt = 0
            retryAt = nil
            lastActivity = now
            state = .connected
            return [.state(.connected), .wakeUp(at: now + policy.deadStreamTimeout)]

        case .received(let eventID):
            guard state == .connected else { return [] }
            if let eventID { lastEventID = eventID.isEmpty ? nil : eventID }
            lastActivity = now
            return [.wakeUp(at: now + policy.deadStreamTimeout)]

        case .heartbeat:
            guard state == .connected else { return [] }
            lastActivity = now
            return [.wakeUp(at: now + policy.deadStreamTimeout)]

        case .retryAdvice(let advice):
            baseDelay = min(max(advice, .milliseconds(100)), policy.maxDelay)
            return []

        case .connectionFailed, .streamClosed:
            guard state == .connecting || state == .connected else { return [] }
            return fail(now: now)

        case .tick:
            switch state {
            case .connected:
                guard let lastActivity else { return [] }
                let deadline = lastActivity + policy.deadStreamTimeout
                return now >= deadline ? fail(now: now) : [.wakeUp(at: deadline)]
            case .reconnecting:
                guard let retryAt else { return [] }
                return now >= retryAt ? beginAttempt() : [.wakeUp(at: retryAt)]
            case .disconnected, .connecting, .error:
                return []
            }

        case .fatal(let message):
            return finish(.error(message))

        case .ended, .stop:
            return finish(.disconnected)
        }
    }

    // MARK: - Transitions

    private mutating func beginAttempt() -> [Action] {
        state = .connecting
        retryAt = nil
        lastActivity = nil
        return [.state(.connecting), .connect(lastEventID: lastEventID)]
    }

    private mutating func fail(now: ContinuousClock.Instant) -> [Action] {
        attempt += 1
        let due = now + nextDelay()
        retryAt = due
        lastActivity = nil
        state = .reconnecting(attempt: attempt)
        return [.closeConnection, .state(state), .wakeUp(at: due)]
    }

    private mutating func finish(_ final: ConnectionState) -> [Action] {
        state = final
        isFinished = true
        retryAt = nil
        lastActivity = nil
        return [.closeConnection, .state(final), .finish]
    }

    /// min(base × 2^(attempt-1), maxDelay) × jitter factor, capped at maxDelay.
    private mutating func nextDelay() -> Duration {
        var delay = baseDelay
        var doublings = attempt - 1
        while doublings > 0, delay < policy.maxDelay {
            delay = delay * 2
            doublings -= 1
        }
        delay = min(delay, policy.maxDelay)
        let jitter = min(max(policy.jitter, 0), 1)
        if jitter > 0 {
            let factor = 1 + jitter * (2 * random.nextUnitInterval() - 1)
            delay = min(delay * factor, policy.maxDelay)
        }
        return max(delay, .zero)
    }
}

/// SplitMix64: a tiny, fast, deterministic generator for jitter.
private struct JitterGenerator: Sendable, Equatable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
