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
        var buffer = try encoder.encode(sessions)
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

    @Test("a session that cannot be encoded makes the list a 500 that names it, logged; never a list without it")
    func failureIsVisible() throws {
        struct Unencodable: Error {}
        let encoder = SessionListEncoder { session in
            if session.id == Self.session(2).id { throw Unencodable() }
            return Array(try JSONResponse.encoder().encode(session))
        }
        let sessions = (1...3).map { Self.session($0) }
        let failure = #expect(throws: SessionListEncoder.Failure.self) { try encoder.encode(sessions) }
        #expect(failure?.description.hasPrefix("session \(Self.session(2).id) could not be encoded") == true)
        let recorder = LogRecorder()
        let response = encoder.response(sessions, logger: recorder.logger)
        #expect(response.status == .internalServerError)
        #expect(recorder.messages.contains { $0.level == .error && $0.message.contains(Self.session(2).id) })
        // The others still encode.
        #expect(try Self.listed(encoder, [Self.session(1), Self.session(3)]) == Self.whole([Self.session(1), Self.session(3)]))
    }
}
