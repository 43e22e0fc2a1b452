import Foundation
import NIOCore
import RalphAPI
import Testing

@testable import RalphMobileServer

@Suite("Session list encoding: cached per session, byte for byte the array's encoding")
struct SessionListEncoderTests {
    static func session(_ n: Int, events: Int = 10, elapsed: Int = 60) -> Session {
        Session(
            id: String(format: "%012x", n), iteration: n, total: n % 2 == 0 ? 50 : nil, hat: n % 3 == 0 ? nil : "builder/\(n)",
            elapsedSecs: elapsed, mode: .complete, status: SessionStatus(rawValue: "completed"), startedAt: "2026-02-05T10:00:00.000Z",
            lastEventAt: "2026-02-05T10:01:00.000Z", eventCount: events, taskName: "task \"\(n)\"\nwith ünïcode", workspace: "ws-\(n)",
            path: ".ralph/events-\(n).jsonl", pid: n % 5 == 0 ? 4242 : nil
        )
    }

    static func whole(_ sessions: [Session]) throws -> String {
        String(decoding: try JSONResponse.encoder().encode(sessions), as: UTF8.self)
    }

    static func listed(_ encoder: SessionListEncoder, _ sessions: [Session]) throws -> String {
        var buffer = try #require(encoder.encode(sessions))
        return buffer.readString(length: buffer.readableBytes) ?? ""
    }

    @Test("first, cached and changed lists are exactly what encoding the array gives")
    func sameBytes() throws {
        let encoder = SessionListEncoder()
        var sessions = (1...50).map { Self.session($0) }
        #expect(try Self.listed(encoder, sessions) == Self.whole(sessions))
        #expect(try Self.listed(encoder, sessions) == Self.whole(sessions))
        // One session moved on, one is gone, one is new, the order changed: only what changed is re-encoded, and
        // nothing stale is served.
        sessions[7] = Self.session(8, events: 11, elapsed: 61)
        sessions.remove(at: 20)
        sessions.insert(Self.session(99), at: 0)
        sessions.swapAt(3, 30)
        #expect(try Self.listed(encoder, sessions) == Self.whole(sessions))
        #expect(try Self.listed(encoder, []) == "[]")
        #expect(try Self.listed(encoder, sessions) == Self.whole(sessions))
    }
}
