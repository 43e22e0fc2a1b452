import Foundation
import Testing

@testable import RalphMobileServer

/// The fast path of the event streams: a writer with nothing to write hands its connection to the event loop, which
/// writes each frame batch (framed for the connection's HTTP version) without waking it; a connection that cannot take
/// more goes back to its writer, and nothing is lost, repeated or reordered either way.
@Suite("Session event stream: frames written by the connection's loop", .serialized)
struct DirectDeliveryTests {
    @Test("live frames go out on the loop as HTTP/1.1 chunks and as HTTP/1.0 bytes, every event once and in order")
    func framedForEachVersion() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun()
        let port = try #require(URL(string: h.server.base)?.port)
        let path = "/api/sessions/\(run.id)/events?history=0"
        let chunked = try RawSocket(port: port)
        chunked.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nRalph-Stream-End: close\r\n\r\n")
        let plain = try RawSocket(port: port)
        plain.send("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nRalph-Stream-End: close\r\n\r\n")
        try await eventually(10, "both subscriptions") { h.server.server.hub.subscriberCount == 2 }
        let queues = h.server.server.hub.runs.queues

        let total = 60
        for n in 1...total {
            run.append(1, from: n, payloadSize: n * 7)
            if n.isMultiple(of: 3) { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await eventually(10, "the loop to have written to both connections") { queues.allSatisfy { $0.directWrites > 0 } }
        try run.end()

        let (chunkedText, plainText) = try await offPool { (chunked.readUntilClosed(timeout: 15), plain.readUntilClosed(timeout: 15)) }
        #expect(chunkedText.closed && plainText.closed, "both streams end and close after the run's end")

        #expect(RawSocket.head(chunkedText.text).contains("transfer-encoding: chunked"))
        let decoded = try Self.dechunk(RawSocket.body(chunkedText.text))
        #expect(chunkedText.text.hasSuffix("\r\n0\r\n\r\n"), "ends with the last chunk: \(String(chunkedText.text.suffix(40)).debugDescription)")
        #expect(decoded.complete, "the chunked body ends with its last chunk")
        // The run's last line (its loop.terminate) is an event too.
        #expect(Self.lines(decoded.body) == Array(1...(total + 1)), "HTTP/1.1: every event once, in order")
        #expect(decoded.body.contains("event: end"))

        #expect(RawSocket.head(plainText.text).hasPrefix("http/1.0 200"))
        #expect(!RawSocket.head(plainText.text).contains("transfer-encoding"))
        let plainBody = RawSocket.body(plainText.text)
        #expect(Self.lines(plainBody) == Array(1...(total + 1)), "HTTP/1.0: every event once, in order, unframed")
        #expect(plainBody.contains("event: end"))
        #expect(!plainBody.contains("\r\n"), "no chunk framing in an HTTP/1.0 body")
    }

    @Test("a connection that stops reading goes back to its writer, catches up, and is handed to the loop again")
    func fallsBackAndReturns() async throws {
        let h = try await StreamHarness.start { $0.subscriberQueueBytes = 16 << 10 }
        defer { h.stop() }
        let run = try await h.liveRun()
        let slow = try await SSETestClient.Paused.connect(h.eventsURL(run.id) + "?history=0")
        try await eventually(10, "the subscription") { h.server.server.hub.subscriberCount == 1 }
        let queue = try #require(h.server.server.hub.runs.queues.first)

        // About 8 MB while it reads nothing: far more than its socket buffers (loopback's grow to megabytes), its
        // connection's buffer and its queue hold.
        let total = 2000
        for batch in 0..<(total / 100) {
            run.append(100, from: batch * 100 + 1, payloadSize: 4000)
            try await Task.sleep(for: .milliseconds(10))
        }
        // Resumed only once the server has taken every line to deliver it (reading 8 MB takes it a moment): until then,
        // the loop may still be writing to a connection that has room.
        try await eventually(30, "the server to have read every line") { (h.server.server.hub.runs.head(run.id) ?? 0) >= total }
        let reader = slow.resume()
        var lines = try await reader.workflowUntilClosed(atMost: total, timeout: 30).compactMap(\.line)
        #expect(lines == Array(1...total), "nothing lost or repeated while it did not read")
        // It rejoins once its catch-up's last write is done, which may be just after the client has read it.
        let runs = h.server.server.hub.runs
        do {
            try await eventually(10, "it to fall behind its queue and catch up from the file") { runs.catchUpCount >= 1 }
        } catch {
            throw TestFailure("\(error) (lagging \(queue.isLagging), loop writes \(queue.directWrites), queued \(queue.queuedBytes) B)")
        }

        // Reading again, it is handed to the loop again: what follows is written there.
        let before = queue.directWrites
        for n in (total + 1)...(total + 20) {
            run.append(1, from: n)
            try await Task.sleep(for: .milliseconds(5))
        }
        lines += try await reader.workflowUntilClosed(atMost: 20, timeout: 20).compactMap(\.line)
        #expect(lines == Array(1...(total + 20)))
        #expect(queue.directWrites > before, "the loop writes to it again once it has caught up")
    }

    /// An HTTP/1.1 chunked body decoded; `complete` once its last (empty) chunk came.
    static func dechunk(_ body: String) throws -> (body: String, complete: Bool) {
        var bytes = Substring(body).utf8[...]
        var out: [UInt8] = []
        while let lineEnd = bytes.firstRange(of: "\r\n".utf8) {
            let sizeText = String(decoding: bytes[..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText, radix: 16) else { throw TestFailure("not a chunk size: '\(sizeText.prefix(40))'") }
            bytes = bytes[lineEnd.upperBound...]
            if size == 0 { return (String(decoding: out, as: UTF8.self), true) }
            guard bytes.count >= size + 2 else { break }
            out += bytes.prefix(size)
            bytes = bytes.dropFirst(size)
            guard bytes.starts(with: "\r\n".utf8) else { throw TestFailure("a chunk not followed by CRLF") }
            bytes = bytes.dropFirst(2)
        }
        return (String(decoding: out, as: UTF8.self), false)
    }

    /// The line numbers of a stream's `id: <line>:<check>` lines, in order.
    static func lines(_ body: String) -> [Int] {
        body.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("id: ") else { return nil }
            return Int(line.dropFirst(4).split(separator: ":").first ?? "")
        }
    }
}
