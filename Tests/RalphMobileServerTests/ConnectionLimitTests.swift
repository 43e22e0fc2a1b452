import Foundation
import RalphAPI
import RalphMobileServer
import Testing

/// Slow, silent and far too many clients: the server closes what waits too long, refuses what is too many, and keeps
/// answering the clients it serves.
@Suite("Connection timeouts and limit", .serialized)
struct ConnectionLimitTests {
    static func start(_ configure: (inout ServerConfiguration) -> Void) async throws -> (LiveServer, TemporaryDirectory, String) {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"), configure)
        return (server, tmp, root)
    }

    @Test("a silent new connection is closed after the header timeout, an idle keep-alive one after the idle timeout")
    func idleConnectionsClosed() async throws {
        let (server, tmp, _) = try await Self.start {
            $0.headerTimeout = 0.5
            $0.idleTimeout = 1.5
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let port = server.port

        let silent = try await offPool { () -> Double in
            let socket = try RawSocket(port: port)
            let opened = Date()
            guard socket.closes(within: 5) else { return -1 }
            return Date().timeIntervalSince(opened)
        }
        #expect(silent >= 0.4 && silent < 1.5, "closed after \(silent) s")

        let keptAlive = try await offPool { () -> (String, Double) in
            let socket = try RawSocket(port: port)
            socket.send("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = socket.readResponse()
            let answered = Date()
            guard socket.closes(within: 5) else { return (answer, -1) }
            return (answer, Date().timeIntervalSince(answered))
        }
        #expect(RawSocket.status(keptAlive.0) == 200)
        #expect(keptAlive.1 >= 1.3 && keptAlive.1 < 2.5, "an idle keep-alive connection closed after \(keptAlive.1) s")
    }

    @Test("a slowloris head, sent a byte at a time faster than any idle limit, is cut at the header timeout with 408")
    func slowlorisCut() async throws {
        let (server, tmp, _) = try await Self.start {
            $0.headerTimeout = 1
            $0.idleTimeout = 30
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let port = server.port
        let (elapsed, answer) = try await offPool { () -> (Double, String) in
            let socket = try RawSocket(port: port)
            let head = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + String(repeating: "a", count: 400) + "\r\n\r\n"
            let started = Date()
            var received = ""
            for byte in head {
                guard socket.send(String(byte)) else { break }
                if let more = socket.available() { received += more }
                if Date().timeIntervalSince(started) > 10 { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            let rest = socket.readUntilClosed(timeout: 2)
            return (Date().timeIntervalSince(started), received + rest.text)
        }
        #expect(elapsed < 3, "the trickling head was cut after \(elapsed) s, not served")
        #expect(RawSocket.status(answer) == 408, "\(answer)")
        #expect(RawSocket.body(answer).hasPrefix(#"{"error":"request_timeout: "#))
    }

    @Test("an event stream outlives the header and idle timeouts: it is never cut while it streams")
    func streamsAreNotCut() async throws {
        let (server, tmp, root) = try await Self.start {
            $0.headerTimeout = 0.3
            $0.idleTimeout = 0.3
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let stream = try await SSETestClient.connect(server.base + "/api/events")
        try await Task.sleep(for: .seconds(2))
        let file = Fixture.run(in: root + "/p", name: "events-20260101-000000.jsonl", lines: [Fixture.emit("task.start", "x")])
        var added = false
        while !added {
            let message = try await stream.nextMessage(timeout: 10)
            added = message.event == "session.added" && message.json["id"] as? String == Fixture.id(file)
        }
        #expect(added)
    }

    @Test("beyond --max-connections new connections get 503 at once; served ones keep answering; idle ones are closed and the server recovers")
    func limitAndRecovery() async throws {
        let limit = 2000
        let extra = 500
        let (server, tmp, _) = try await Self.start {
            $0.maxConnections = limit
            $0.headerTimeout = 4
            $0.idleTimeout = 60
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let port = server.port
        let report = try await offPool { () -> (refused: Int, refusedBodies: Set<String>, healthy: Int, latencies: [Double], overLimit: Int, closedAfterTimeout: Int, recovered: Int) in
            // A client already served, on a keep-alive connection.
            let served = try RawSocket(port: port)
            let ask = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            served.send(ask)
            guard RawSocket.status(served.readResponse()) == 200 else { throw TestFailure("no first answer") }

            // The flood: connections that never send anything.
            var idle: [RawSocket] = []
            for _ in 0..<(limit - 1 + extra) { idle.append(try RawSocket(port: port)) }
            Thread.sleep(forTimeInterval: 1)
            var refused = 0
            var bodies: Set<String> = []
            for socket in idle {
                if let text = socket.available(), RawSocket.status(text) == 503 {
                    refused += 1
                    bodies.insert(String(RawSocket.body(text).prefix(40)))
                }
            }
            // The served client is still answered, promptly, while the others are held.
            var healthy = 0
            var latencies: [Double] = []
            for _ in 0..<20 {
                let asked = Date()
                served.send(ask)
                if RawSocket.status(served.readResponse(timeout: 5)) == 200 { healthy += 1 }
                latencies.append(Date().timeIntervalSince(asked))
            }
            // A new client while the limit is reached: told so at once.
            let newcomer = try RawSocket(port: port)
            newcomer.send(ask)
            let overLimit = RawSocket.status(newcomer.readResponse(timeout: 5))

            // The header timeout closes every silent connection; then new clients are served again.
            Thread.sleep(forTimeInterval: 4)
            let closedAfterTimeout = idle.prefix(200).filter { $0.closes(within: 3) }.count
            var recovered = 0
            for _ in 0..<5 {
                let socket = try RawSocket(port: port)
                socket.send(ask)
                if RawSocket.status(socket.readResponse()) == 200 { recovered += 1 }
            }
            return (refused, bodies, healthy, latencies, overLimit, closedAfterTimeout, recovered)
        }
        #expect(report.refused == extra, "\(report.refused) of the \(extra) connections over the limit got 503")
        #expect(report.refusedBodies == [#"{"error":"unavailable: the server is ser"#])
        #expect(report.healthy == 20)
        #expect((report.latencies.max() ?? 9) < 0.5, "health latencies \(report.latencies)")
        #expect(report.overLimit == 503)
        #expect(report.closedAfterTimeout == 200)
        #expect(report.recovered == 5)
    }
}
