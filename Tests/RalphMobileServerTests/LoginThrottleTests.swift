import Foundation
import NIOCore
import RalphAPI
import Testing

@testable import RalphMobileServer

@Suite("Refusing key guessing")
struct LoginThrottleTests {
    static let key = "admin-secret-for-throttle-tests"

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

    @Test("--auth-failure-limit sets how many wrong keys an address may present before it is refused")
    func configuredLimit() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data")) {
            $0.apiKey = Self.key
            $0.authFailureLimit = 3
        }
        defer { Task { await server.stop() } }
        for _ in 0..<3 { #expect(try await HTTP.get(server.base + "/api/sessions", headers: [("X-Api-Key", "wrong")]).status == 401) }
        let refused = try await HTTP.get(server.base + "/api/sessions", headers: [("X-Api-Key", Self.key)])
        #expect(refused.status == 429, "the fourth attempt is refused, right key or not")
        #expect(refused.text.contains("3 wrong keys or pairing codes from this address"), "\(refused.text)")
    }
}
