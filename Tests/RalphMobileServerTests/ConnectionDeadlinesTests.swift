import NIOCore
import Testing

@testable import RalphMobileServer

@Suite("Connection deadlines (the state alone)")
struct ConnectionDeadlinesTests {
    static let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
    static func at(_ seconds: Double) -> NIODeadline { t0 + .nanoseconds(Int64(seconds * 1e9)) }

    /// A connection opened at t0 with a 10 s header timeout and a 75 s idle timeout.
    static func opened() -> ConnectionDeadlines {
        ConnectionDeadlines(now: t0, headerTimeout: .seconds(10), idleTimeout: .seconds(75))
    }

    /// A connection whose first request head arrived whole at 1 s; with `ended`, its body too.
    static func headReceived(ended: Bool) -> ConnectionDeadlines {
        var state = opened()
        state.bytesRead(at: at(1))
        state.headReceived(at: at(1))
        if ended { state.requestEnded(at: at(1)) }
        return state
    }

    @Test("a new connection has the header timeout to send a head; a head's first byte starts a clock more bytes do not reset")
    func headerTimeout() {
        var state = Self.opened()
        #expect(state.deadline == Self.at(10))
        #expect(state.expiry(at: Self.at(9.9)) == nil)
        #expect(state.expiry(at: Self.at(10)) == .idle)

        state.bytesRead(at: Self.at(3))
        #expect(state.phase == .readingHead(since: Self.at(3)))
        for second in 4..<13 { state.bytesRead(at: Self.at(Double(second))) }
        #expect(state.deadline == Self.at(13), "trickling bytes do not extend it")
        #expect(state.expiry(at: Self.at(13)) == .slowHead)
    }

    @Test("an open request never expires while its response is written; afterwards the idle timeout runs")
    func busyThenIdle() {
        var state = Self.headReceived(ended: true)
        #expect(state.phase == .busy && state.deadline == nil, "a stream may last for days")
        #expect(state.expiry(at: Self.at(100_000)) == nil)
        state.responseEnded(at: Self.at(500))
        #expect(state.phase == .waiting(since: Self.at(500), limit: .seconds(75)))
        #expect(state.expiry(at: Self.at(575)) == .idle)
    }

    @Test("a request body that stops arriving expires after the idle timeout, even once its answer is out")
    func stalledBody() {
        var state = Self.headReceived(ended: false)
        state.bytesRead(at: Self.at(20))
        #expect(state.deadline == Self.at(95))
        state.responseEnded(at: Self.at(21))
        #expect(state.phase == .busy, "the rest of the body is still being read")
        #expect(state.expiry(at: Self.at(95)) == .stalledBody)
        state.requestEnded(at: Self.at(30))
        #expect(state.phase == .waiting(since: Self.at(30), limit: .seconds(75)))
    }

    @Test("bytes of a pipelined next head start its clock when they arrive, not when the previous answer ends")
    func pipelinedHead() {
        var state = Self.headReceived(ended: true)
        state.bytesRead(at: Self.at(2))
        state.responseEnded(at: Self.at(8))
        #expect(state.phase == .readingHead(since: Self.at(2)))
        #expect(state.expiry(at: Self.at(12)) == .slowHead)
        state.headReceived(at: Self.at(9))
        state.headReceived(at: Self.at(9))
        state.requestEnded(at: Self.at(9))
        state.responseEnded(at: Self.at(10))
        #expect(state.phase == .busy, "one of two pipelined requests is still open")
        state.responseEnded(at: Self.at(11))
        #expect(state.phase == .waiting(since: Self.at(11), limit: .seconds(75)))
    }
}
