import NIOCore

/// When a connection has waited too long for its client, and is closed.
///
/// - **Header timeout.** A request head must be complete within the header timeout of its first byte — and a new
///   connection must send a complete head within it of connecting. A slowloris client (a head sent a byte at a time)
///   is cut however steadily it trickles.
/// - **Idle timeout.** A connection with no request open (between keep-alive requests) is closed after the idle
///   timeout. So is one whose request body stops arriving for that long.
/// - **Never while answering.** Once a head is in, nothing times out while its response is being written: an SSE
///   stream stays open for as long as it streams.
///
/// Pure state: ``ConnectionDeadlineHandler`` feeds it what happens on the socket and asks it when to look again.
struct ConnectionDeadlines {
    /// What the connection is waiting for.
    enum Phase: Equatable {
        /// No request is open and no byte of the next one has come: the client has until `since + limit`.
        case waiting(since: NIODeadline, limit: TimeAmount)
        /// The first bytes of a request head came at `since`; the rest must follow within the header timeout.
        case readingHead(since: NIODeadline)
        /// A request is open: its body is being read or its response written.
        case busy
    }

    /// Why a connection is closed.
    enum Expiry: Equatable {
        /// No request within the idle timeout (or, for a new connection, the header timeout).
        case idle
        /// A request head not completed within the header timeout.
        case slowHead
        /// A request body silent for the idle timeout.
        case stalledBody
    }

    let headerTimeout: TimeAmount
    let idleTimeout: TimeAmount
    private(set) var phase: Phase
    /// Requests whose head has come and whose response has not ended.
    private(set) var openRequests = 0
    /// A request whose head has come and whose body has not ended.
    private(set) var bodyOpen = false
    private var lastRead: NIODeadline
    /// When bytes of the next head started to come while a response was still being written (pipelining).
    private var nextHeadSince: NIODeadline?

    init(now: NIODeadline, headerTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        phase = .waiting(since: now, limit: headerTimeout)
        lastRead = now
    }

    /// Bytes came from the client.
    mutating func bytesRead(at now: NIODeadline) {
        lastRead = now
        switch phase {
        case .waiting: phase = .readingHead(since: now)
        case .readingHead: break
        case .busy: if !bodyOpen && nextHeadSince == nil { nextHeadSince = now }
        }
    }

    /// A request head was parsed.
    mutating func headReceived(at now: NIODeadline) {
        openRequests += 1
        bodyOpen = true
        nextHeadSince = nil
        phase = .busy
    }

    /// A request's body ended.
    mutating func requestEnded(at now: NIODeadline) {
        bodyOpen = false
        settle(at: now)
    }

    /// A response ended.
    mutating func responseEnded(at now: NIODeadline) {
        openRequests = max(0, openRequests - 1)
        settle(at: now)
    }

    /// Leaves `busy` once no request is open.
    private mutating func settle(at now: NIODeadline) {
        guard openRequests == 0, !bodyOpen, phase == .busy else { return }
        if let since = nextHeadSince {
            phase = .readingHead(since: since)
        } else {
            phase = .waiting(since: now, limit: idleTimeout)
        }
        nextHeadSince = nil
    }

    /// The instant the connection expires if nothing happens first; nil while nothing can expire.
    var deadline: NIODeadline? {
        switch phase {
        case .waiting(let since, let limit): since + limit
        case .readingHead(let since): since + headerTimeout
        case .busy: bodyOpen ? lastRead + idleTimeout : nil
        }
    }

    /// Whether the connection has expired at `now`, and why.
    func expiry(at now: NIODeadline) -> Expiry? {
        guard let deadline, now >= deadline else { return nil }
        switch phase {
        case .waiting: return .idle
        case .readingHead: return .slowHead
        case .busy: return .stalledBody
        }
    }
}
