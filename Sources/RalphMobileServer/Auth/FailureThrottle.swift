import NIOCore
import Synchronization

/// Refuses key guessing: after ``limit`` wrong keys from one address within ``window``, every further attempt with a
/// key from that address is refused with `429 too_many_requests` and `Retry-After` until the window has passed —
/// without the key being looked at, so a refused attempt tells nothing about the key it carried.
///
/// - Only presented keys count (a header, a bearer, `?token=`, a login): a request with no key, or with a session
///   cookie (256 random bits, not guessable), is not an attempt at guessing, and a browser whose login expired would
///   otherwise lock itself out by reconnecting its streams.
/// - A success does not clear the count, so one valid (say viewer) key cannot be used to keep guessing another.
/// - IPv6 addresses count by their /64, the block one host is usually given.
final class FailureThrottle: Sendable {
    struct Entry {
        var failures: Int
        var windowStart: ContinuousClock.Instant
    }

    /// Wrong keys allowed per address and window.
    let limit: Int
    let window: Duration
    private let entries = Mutex<[String: Entry]>([:])

    init(limit: Int = 10, window: Duration = .seconds(60)) {
        self.limit = limit
        self.window = window
    }

    /// How long `address` must wait before its next attempt, or nil when it may try now.
    func refusal(for address: String, now: ContinuousClock.Instant = .now) -> Duration? {
        entries.withLock { entries in
            guard let entry = entries[address], now - entry.windowStart < window, entry.failures >= limit else { return nil }
            return window - (now - entry.windowStart)
        }
    }

    /// Records a wrong key from `address`.
    func failure(from address: String, now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            if entries.count > 10_000 { entries = entries.filter { now - $0.value.windowStart < window } }
            var entry = entries[address] ?? Entry(failures: 0, windowStart: now)
            if now - entry.windowStart >= window { entry = Entry(failures: 0, windowStart: now) }
            entry.failures += 1
            entries[address] = entry
        }
    }

    /// Forgets every address's wrong keys (tests that ask many routes with one wrong key from one address).
    func clear() {
        entries.withLock { $0 = [:] }
    }

    /// The `429` for an address that must wait `wait`.
    func error(waiting wait: Duration) -> APIError {
        let seconds = Int((wait + .milliseconds(999)).components.seconds)
        return .tooManyRequests(
            "\(limit) wrong keys or pairing codes from this address within \(window.components.seconds) s; retry in \(max(1, seconds)) s", retryAfter: seconds
        )
    }

    /// The throttle's name for a caller: its IP address, or the /64 network of an IPv6 one.
    static func key(for address: SocketAddress?) -> String {
        guard let address else { return "unknown" }
        switch address {
        case .v6(let v6):
            var bytes = v6.address.sin6_addr
            let raw = withUnsafeBytes(of: &bytes) { Array($0) }
            // An IPv4 address seen through an IPv6 socket (::ffff:a.b.c.d) is one host.
            if raw[0..<10].allSatisfy({ $0 == 0 }) && raw[10] == 0xff && raw[11] == 0xff {
                return raw[12..<16].map(String.init).joined(separator: ".")
            }
            return stride(from: 0, to: 8, by: 2).map { String(UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1]), radix: 16) }.joined(separator: ":") + "::/64"
        default:
            return address.ipAddress ?? "unknown"
        }
    }
}
