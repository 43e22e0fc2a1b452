import Foundation
import RalphAPI
import Testing

@Suite("HTTP/1.0 clients")
struct HTTPVersionTests {
    static func exchange(_ port: Int, _ request: String) async throws -> (text: String, closed: Bool) {
        try await offPool {
            let socket = try RawSocket(port: port)
            socket.send(request)
            return socket.readUntilClosed(timeout: 10)
        }
    }

    @Test("an HTTP/1.0 request gets an HTTP/1.0 answer: a length or the end of the connection, never chunks")
    func noChunksForHTTP10() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let file = Fixture.run(
            in: root + "/p", name: "events-20260101-000000.jsonl",
            lines: [Fixture.emit("task.start", "x"), Fixture.emit("build.done", "ok"), Fixture.terminate("completed", iterations: 1)]
        )
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let id = Fixture.id(file)

        // A finished run's stream: its history, `end`, then the connection closes (for a client that says it understands
        // `end`; the original iOS app's stream is held open, see OriginalAppStreamTests); the body is the SSE text itself.
        let stream = try await Self.exchange(server.port, "GET /api/sessions/\(id)/events HTTP/1.0\r\nHost: 127.0.0.1\r\nRalph-Stream-End: close\r\n\r\n")
        let head = RawSocket.head(stream.text)
        #expect(head.hasPrefix("http/1.0 200"), "\(head)")
        #expect(!head.contains("transfer-encoding"))
        #expect(head.contains("connection: close"))
        #expect(RawSocket.body(stream.text).hasPrefix("retry: 2000\n"), "\(RawSocket.body(stream.text).prefix(40))")
        #expect(RawSocket.body(stream.text).contains("event: end\n"))
        #expect(stream.closed)

        // A JSON answer: Content-Length, and the connection ends after it (no HTTP/1.0 keep-alive here).
        let health = try await Self.exchange(server.port, "GET /api/health HTTP/1.0\r\n\r\n")
        #expect(RawSocket.status(health.text) == 200)
        #expect(RawSocket.head(health.text).contains("content-length:") && !RawSocket.head(health.text).contains("transfer-encoding"))
        #expect(health.closed)
        let keepAlive = try await Self.exchange(server.port, "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(RawSocket.body(keepAlive.text) == "OK" && keepAlive.closed)

        // HTTP/1.1 is unchanged: the stream is chunked.
        let chunked = try await offPool {
            let socket = try RawSocket(port: server.port)
            socket.send("GET /api/sessions/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return socket.readUntilClosed(timeout: 10).text
        }
        #expect(RawSocket.head(chunked).hasPrefix("http/1.1 200") && RawSocket.head(chunked).contains("transfer-encoding: chunked"))
    }
}
