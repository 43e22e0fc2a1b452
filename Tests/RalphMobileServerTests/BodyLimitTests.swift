import Foundation
import RalphAPI
import Testing

@Suite("Bodies over 2 MB")
struct BodyLimitTests {
    @Test("a body over 2 MB is 413 payload_too_large, declared or chunked, and the rest of a declared one is never read")
    func tooLarge() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let port = server.port
        let big = #"{"content":""# + String(repeating: "x", count: 3 << 20) + #""}"#

        let declared = try await HTTP.request(server.base + "/api/memories", method: .PUT, body: big)
        #expect(declared.status == 413)
        #expect(declared.text.hasPrefix(#"{"error":"payload_too_large: "#), "\(declared.text.prefix(200))")

        // 70 MB announced, 1 MB sent: the answer comes at once and the connection closes without waiting for the rest.
        let announced = try await offPool {
            let socket = try RawSocket(port: port)
            socket.send(
                "PUT /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(70 << 20)\r\n\r\n"
                    + String(repeating: "y", count: 1 << 20)
            )
            return socket.readUntilClosed(timeout: 10)
        }
        #expect(RawSocket.status(announced.text) == 413)
        #expect(RawSocket.head(announced.text).contains("connection: close"))
        #expect(announced.closed, "the server closes instead of reading 69 MB more")

        // Chunked, with no length announced: stopped at the limit by the decoder, same answer.
        let chunked = try await offPool {
            let socket = try RawSocket(port: port)
            var request = "POST /api/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            let chunk = String(repeating: "z", count: 64 << 10)
            for _ in 0..<40 { request += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
            request += "0\r\n\r\n"
            socket.send(request)
            return socket.readUntilClosed(timeout: 10).text
        }
        #expect(RawSocket.status(chunked) == 413, "\(chunked.prefix(300))")
        #expect(RawSocket.body(chunked).hasPrefix(#"{"error":"payload_too_large: "#))

        // Just under the limit is still a body like any other (here: not a valid key request).
        let small = try await HTTP.request(server.base + "/api/keys", method: .POST, body: #"{"role":"nope"}"#)
        #expect(small.status == 400)
    }
}
