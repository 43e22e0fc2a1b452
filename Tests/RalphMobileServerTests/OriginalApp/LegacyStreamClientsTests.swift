import Foundation
import NIOCore
import Testing

@testable import RalphMobileServer

/// The memory of the original app's streams: what a reconnect resumes after, when a screen opening wins, and its bounds.
@Suite("Original iOS app: what its reconnects resume after")
struct LegacyStreamClientsTests {
    @Test("a reconnect resumes after the last id sent; a status asked just before is a screen opening; old entries expire")
    func resumeRules() {
        let clients = LegacyStreamClients()
        let now = Date()
        #expect(clients.resumeLine(client: "a", session: "s", now: now) == nil, "never streamed: the usual replay")
        clients.sent(client: "a", session: "s", line: 41, now: now)
        #expect(clients.resumeLine(client: "a", session: "s", now: now.addingTimeInterval(2)) == 41)
        #expect(clients.resumeLine(client: "b", session: "s", now: now) == nil, "another client")
        #expect(clients.resumeLine(client: "a", session: "t", now: now) == nil, "another run")
        clients.statusAsked(client: "a", session: "s", now: now.addingTimeInterval(3))
        #expect(clients.resumeLine(client: "a", session: "s", now: now.addingTimeInterval(4)) == nil, "the screen opened: a full replay")
        #expect(clients.resumeLine(client: "a", session: "s", now: now.addingTimeInterval(5)) == 41, "the status is used once")
        #expect(clients.resumeLine(client: "a", session: "s", now: now.addingTimeInterval(LegacyStreamClients.memory + 1)) == nil, "forgotten after an hour")
    }

    @Test("at most capacity clients are remembered; the newest are kept")
    func bounded() {
        let clients = LegacyStreamClients()
        let now = Date()
        for n in 0..<(LegacyStreamClients.capacity * 3) {
            clients.sent(client: "c\(n)", session: "s", line: n, now: now.addingTimeInterval(Double(n) / 1000))
        }
        #expect(clients.count <= LegacyStreamClients.capacity)
        let last = LegacyStreamClients.capacity * 3 - 1
        #expect(clients.resumeLine(client: "c\(last)", session: "s", now: now.addingTimeInterval(10)) == last)
    }

    @Test("the last id of a write is found at a line start, with or without its check")
    func lastIDOfAWrite() {
        #expect(LegacyTrackingWriter.lastEventLine(ByteBuffer(string: "id: 7:3fa2\nevent: workflow\ndata: {}\n\nid: 9\ndata: {\"x\":\"id: 99\"}\n\n")) == 9)
        #expect(LegacyTrackingWriter.lastEventLine(ByteBuffer(string: ": keep-alive\n\n")) == nil)
        #expect(LegacyTrackingWriter.lastEventLine(ByteBuffer(string: "event: end\ndata: {}\n\n")) == nil)
        #expect(LegacyTrackingWriter.lastEventLine(ByteBuffer(string: "id: 12\n")) == 12)
    }
}
