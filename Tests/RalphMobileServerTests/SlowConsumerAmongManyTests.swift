import Foundation
import Testing

@testable import RalphMobileServer

#if canImport(Glibc)
import Glibc
#endif

/// One client that stops reading, among a thousand that read: the others get every event, once, in order, and none
/// of them is cut; the slow one, once it reads again, catches up from the file with nothing lost either.
@Suite("Session event stream: one slow consumer among a thousand", .serialized)
struct SlowConsumerAmongManyTests {
    @Test("a slow consumer among 1 000 fast ones changes nothing for the others, and loses nothing itself")
    func slowAmongThousand() async throws {
        // A small queue, so that the slow one (a 4 KB receive buffer) falls behind it after a few dozen events.
        let h = try await StreamHarness.start() { $0.subscriberQueueBytes = 16 << 10 }
        defer { h.stop() }
        let run = try await h.liveRun()
        let port = try #require(URL(string: h.server.base)?.port)
        let fast = try SSEFleet(port: port, path: "/api/sessions/\(run.id)/events?history=0", count: 1000)
        defer { fast.close() }
        let slow = try await SSETestClient.Paused.connect(h.eventsURL(run.id) + "?history=0")
        try await eventually(20, "the 1 001 subscriptions") { h.server.server.hub.subscriberCount == 1001 }

        // Paced as a busy run writes (ten at a time), and enough to fill the slow one's socket buffers and queue many
        // times over (about 130 KB).
        let total = 400
        for batch in 0..<(total / 10) {
            run.append(10, from: batch * 10 + 1, payloadSize: 300)
            try await Task.sleep(for: .milliseconds(20))
        }
        try await eventually(60, "every fast client to have every event") { fast.minimumLine() >= total }
        #expect(fast.violations() == [], "every fast client got each event once, in order")
        #expect(fast.closedCount() == 0, "no fast client was cut")
        #expect(h.server.server.hub.subscriberCount == 1001, "the slow one is still subscribed too: never cut while connected")

        // The slow one reads again: the file first, then live, every event once.
        let reader = slow.resume()
        var lines = try await reader.workflowUntilClosed(atMost: total, timeout: 30).compactMap(\.line)
        run.append(10, from: total + 1)
        lines += try await reader.workflowUntilClosed(atMost: 10, timeout: 20).compactMap(\.line)
        #expect(lines == Array(1...(total + 10)), "the slow consumer lost and repeated nothing")
        #expect(h.server.server.hub.runs.catchUpCount >= 1, "the slow one did fall behind its queue, and caught up from the file")
        try await eventually(20, "the fast clients to have the last ten") { fast.minimumLine() >= total + 10 }
        #expect(fast.violations() == [])
    }
}

/// Many SSE connections read by one thread with `poll`: for each, the line ids of its `workflow` events, checked to
/// rise one by one from the first (ids are `<line>:<check>`; the bench run's lines are all events).
final class SSEFleet: @unchecked Sendable {
    private struct Connection {
        var fd: Int32
        var pending: [UInt8] = []
        var last = 0
        var closed = false
        var violation: String?
    }

    private let lock = NSLock()
    private var connections: [Connection] = []
    /// Closed when released.
    private var sockets: [RawSocket] = []
    private var stopped = false
    private var thread: Thread?

    convenience init(port: Int, path: String, count: Int) throws {
        try self.init(port: port, paths: Array(repeating: path, count: count))
    }

    init(port: Int, paths: [String]) throws {
        for path in paths {
            let socket = try RawSocket(port: port)
            socket.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
            sockets.append(socket)
            connections.append(Connection(fd: socket.fd))
        }
        let thread = Thread { [self] in readLoop() }
        self.thread = thread
        thread.start()
    }

    /// Stops reading and closes every connection.
    func close() {
        lock.lock()
        stopped = true
        lock.unlock()
        Thread.sleep(forTimeInterval: 0.1)
        lock.lock()
        sockets.removeAll()
        lock.unlock()
    }

    /// The smallest last line any connection has.
    func minimumLine() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return connections.map(\.last).min() ?? 0
    }

    func violations() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return connections.compactMap(\.violation).prefix(5).map { $0 }
    }

    func closedCount() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return connections.filter(\.closed).count
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            lock.lock()
            if stopped {
                lock.unlock()
                return
            }
            var polls = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            lock.unlock()
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            for (index, entry) in polls.enumerated() where entry.revents != 0 {
                let n = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                lock.lock()
                if n > 0 {
                    connections[index].pending += buffer[0..<n]
                    Self.consume(&connections[index])
                } else if n == 0 {
                    connections[index].closed = true
                }
                lock.unlock()
            }
        }
    }

    /// Takes the complete lines of `pending`; each `id: <line>:…` must follow the one before.
    private static func consume(_ connection: inout Connection) {
        var start = 0
        let bytes = connection.pending
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            let line = bytes[start..<newline]
            start = newline + 1
            guard line.starts(with: Array("id: ".utf8)) else { continue }
            let text = String(decoding: line.dropFirst(4), as: UTF8.self)
            guard let number = Int(text.split(separator: ":").first ?? "") else { continue }
            if number != connection.last + 1 && connection.violation == nil {
                connection.violation = "fd \(connection.fd): line \(number) after \(connection.last)"
            }
            connection.last = number
        }
        connection.pending = Array(bytes[start...])
    }
}
