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

    @Test("at --max-connections a new client takes the place of the connection silent the longest; served ones keep answering")
    func limitReplacesIdleConnections() async throws {
        let limit = 2000
        let extra = 500
        let (server, tmp, _) = try await Self.start {
            $0.maxConnections = limit
            $0.headerTimeout = 120
            $0.idleTimeout = 120
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let port = server.port
        let report = try await offPool { () -> (oldestClosed: Int, newestClosed: Int, refused: Int, healthy: Int, latencies: [Double], newcomers: Int) in
            // A client already served, on a keep-alive connection.
            let served = try RawSocket(port: port)
            let ask = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            served.send(ask)
            guard RawSocket.status(served.readResponse()) == 200 else { throw TestFailure("no first answer") }
            // The flood: connections that never send anything, 500 more than the limit holds.
            var idle: [RawSocket] = []
            for _ in 0..<(limit - 1 + extra) { idle.append(try RawSocket(port: port)) }
            // The 500 that waited longest made room for the last 500; none was answered 503. (Connections are accepted
            // on two event loops, so "longest" is exact to within a few places of the order they were opened in.) On a
            // loaded machine the last closes may come a moment after the flood: up to 5 s for them.
            var oldestClosed = 0
            let settled = Date().addingTimeInterval(5)
            repeat {
                Thread.sleep(forTimeInterval: 0.5)
                oldestClosed = idle.prefix(extra + 100).filter { $0.closes(within: 0.01) }.count
            } while oldestClosed < extra && Date() < settled
            let newestClosed = idle.suffix(limit - 1 - 100).filter { $0.closes(within: 0.001) }.count
            let refused = idle.filter { ($0.available()).map { RawSocket.status($0) == 503 } ?? false }.count
            // The served client is still answered, promptly, while the others are held.
            var healthy = 0
            var latencies: [Double] = []
            for _ in 0..<20 {
                let asked = Date()
                served.send(ask)
                if RawSocket.status(served.readResponse(timeout: 5)) == 200 { healthy += 1 }
                latencies.append(Date().timeIntervalSince(asked))
            }
            // New clients while the limit is reached are served, each in the place of a silent connection.
            var newcomers = 0
            for _ in 0..<5 {
                let socket = try RawSocket(port: port)
                socket.send(ask)
                if RawSocket.status(socket.readResponse(timeout: 5)) == 200 { newcomers += 1 }
            }
            return (oldestClosed, newestClosed, refused, healthy, latencies, newcomers)
        }
        #expect(report.oldestClosed == extra, "\(report.oldestClosed) of the \(extra + 100) oldest silent connections were closed")
        #expect(report.newestClosed == 0, "the newer silent connections are kept")
        #expect(report.refused == 0)
        #expect(report.healthy == 20)
        #expect((report.latencies.max() ?? 9) < 0.5, "health latencies \(report.latencies)")
        #expect(report.newcomers == 5)
    }

    @Test("beyond --max-connections, when every connection is busy, new ones get 503 at once; the server recovers")
    func limitRefusesWhenAllBusy() async throws {
        let limit = 200
        let (server, tmp, _) = try await Self.start {
            $0.maxConnections = limit
            $0.headerTimeout = 3
            $0.idleTimeout = 60
        }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let port = server.port
        let report = try await offPool { () -> (overLimit: [Int], refusedBodies: Set<String>, timedOut: Int, recovered: Int) in
            // Every connection busy: each has sent the start of a request head (a slowloris), so none is idle.
            var busy: [RawSocket] = []
            for _ in 0..<limit {
                let socket = try RawSocket(port: port)
                socket.send("GET /api/health HTTP/1.1\r\n")
                busy.append(socket)
            }
            Thread.sleep(forTimeInterval: 0.5)
            var overLimit: [Int] = []
            var bodies: Set<String> = []
            let ask = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            for _ in 0..<3 {
                let newcomer = try RawSocket(port: port)
                newcomer.send(ask)
                let answer = newcomer.readResponse(timeout: 5)
                overLimit.append(RawSocket.status(answer))
                bodies.insert(String(RawSocket.body(answer).prefix(40)))
            }
            // The header timeout cuts the slow heads; then new clients are served again.
            let timedOut = busy.prefix(50).filter { RawSocket.status($0.readResponse(timeout: 6)) == 408 }.count
            Thread.sleep(forTimeInterval: 0.5)
            var recovered = 0
            for _ in 0..<5 {
                let socket = try RawSocket(port: port)
                socket.send(ask)
                if RawSocket.status(socket.readResponse()) == 200 { recovered += 1 }
            }
            return (overLimit, bodies, timedOut, recovered)
        }
        #expect(report.overLimit == [503, 503, 503])
        #expect(report.refusedBodies == [#"{"error":"unavailable: the server is ser"#])
        #expect(report.timedOut == 50)
        #expect(report.recovered == 5)
    }
}
