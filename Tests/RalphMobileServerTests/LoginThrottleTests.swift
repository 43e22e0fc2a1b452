import Foundation
import NIOCore
import RalphAPI
import Testing

@testable import RalphMobileServer

@Suite("Refusing key guessing")
struct LoginThrottleTests {
    static let key = "admin-secret-for-throttle-tests"

    @Test("after 10 wrong keys from an address, its attempts are refused with 429 and Retry-After, the right key included")
    func wrongKeysLockOut() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data")) { $0.apiKey = Self.key }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let base = server.base
        let login = try await HTTP.request(base + "/api/login", method: .POST, headers: [("Origin", base)], body: #"{"key":"\#(Self.key)"}"#)
        let cookie = try #require(login.headers["set-cookie"].first?.split(separator: ";").first.map(String.init))

        // Asking without a key is not guessing: it never counts.
        for _ in 0..<20 { #expect(try await HTTP.get(base + "/api/sessions").status == 401) }
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("X-Api-Key", Self.key)]).status == 200)

        for attempt in 0..<10 {
            let wrong = attempt % 2 == 0
                ? try await HTTP.get(base + "/api/sessions", headers: [("X-Api-Key", "wrong-guess-\(attempt)")])
                : try await HTTP.request(base + "/api/login", method: .POST, headers: [("Origin", base)], body: #"{"key":"guess-\#(attempt)"}"#)
            #expect(wrong.status == 401, "attempt \(attempt)")
        }
        let started = ContinuousClock.now
        for presented in [
            [("X-Api-Key", Self.key)], [("Authorization", "Bearer \(Self.key)")], [("X-Api-Key", "another-guess")],
        ] {
            let refused = try await HTTP.get(base + "/api/sessions", headers: presented)
            #expect(refused.status == 429)
            #expect(refused.text.hasPrefix(#"{"error":"too_many_requests: "#), "\(refused.text)")
            let retryAfter = try #require(refused.headers["retry-after"].first.flatMap { Int($0) })
            #expect((1...60).contains(retryAfter))
        }
        let relogin = try await HTTP.request(base + "/api/login", method: .POST, headers: [("Origin", base)], body: #"{"key":"\#(Self.key)"}"#)
        #expect(relogin.status == 429)
        #expect(ContinuousClock.now - started < .seconds(2), "refused at once, not delayed")
        // A browser already logged in is not locked out: its cookie is not a guess.
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("Cookie", cookie)]).status == 200)
    }

    @Test("the count lasts a window, is not cleared by a success, and is kept per address (per /64 for IPv6)")
    func throttleRules() throws {
        let throttle = FailureThrottle(limit: 3, window: .seconds(60))
        let t0 = ContinuousClock.now
        for i in 0..<2 { throttle.failure(from: "10.0.0.1", now: t0 + .seconds(i)) }
        #expect(throttle.refusal(for: "10.0.0.1", now: t0 + .seconds(2)) == nil)
        throttle.failure(from: "10.0.0.1", now: t0 + .seconds(2))
        #expect(throttle.refusal(for: "10.0.0.1", now: t0 + .seconds(2)) == .seconds(58))
        #expect(throttle.refusal(for: "10.0.0.2", now: t0 + .seconds(2)) == nil, "other addresses are not affected")
        #expect(throttle.refusal(for: "10.0.0.1", now: t0 + .seconds(60)) == nil, "the window ends")
        throttle.failure(from: "10.0.0.1", now: t0 + .seconds(61))
        #expect(throttle.refusal(for: "10.0.0.1", now: t0 + .seconds(61)) == nil, "a new window starts from one")
        let error = throttle.error(waiting: .milliseconds(41_200))
        #expect(error.status == .tooManyRequests && error.response().headers[.retryAfter] == "42")

        let a = try SocketAddress(ipAddress: "2001:db8:1:2:aaaa::1", port: 1)
        let b = try SocketAddress(ipAddress: "2001:db8:1:2:bbbb::9", port: 2)
        let c = try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1)
        #expect(FailureThrottle.key(for: a) == FailureThrottle.key(for: b))
        #expect(FailureThrottle.key(for: a) != FailureThrottle.key(for: c))
        #expect(FailureThrottle.key(for: try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 1)) == "192.0.2.7")
        #expect(FailureThrottle.key(for: try SocketAddress(ipAddress: "192.0.2.7", port: 1)) == "192.0.2.7")
    }
}
