import Foundation
import RalphAPI
import Testing

/// What a web page the user visits can do to a server through the user's browser: nothing.
@Suite("Cross-site requests and DNS rebinding")
struct CrossSiteTests {
    /// One request over a raw socket, with exactly these headers; returns the whole response.
    static func raw(_ port: Int, _ method: String, _ target: String, headers: [String], body: String = "") async throws -> String {
        try await offPool {
            let socket = try RawSocket(port: port)
            var head = "\(method) \(target) HTTP/1.1\r\n" + headers.map { $0 + "\r\n" }.joined()
            if !body.isEmpty || method != "GET" { head += "Content-Length: \(body.utf8.count)\r\n" }
            socket.send(head + "Connection: close\r\n\r\n" + body)
            return socket.readUntilClosed(timeout: 10).text
        }
    }

    @Test("a trusted loopback server answers only to loopback Host names, so a rebound DNS name reaches nothing")
    func onlyLoopbackHosts() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let port = server.port

        for host in ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)", "LOCALHOST:1", "127.0.0.1", "localhost"] {
            let answer = try await Self.raw(port, "GET", "/api/sessions", headers: ["Host: \(host)"])
            #expect(RawSocket.status(answer) == 200, "Host: \(host)")
        }
        for target in ["/api/sessions", "/health", "/api/health", "/", "/api/keys"] {
            let answer = try await Self.raw(port, "GET", target, headers: ["Host: evil.example:\(port)"])
            #expect(RawSocket.status(answer) == 421, "\(target)")
            #expect(RawSocket.body(answer).hasPrefix(#"{"error":"misdirected_request: "#), "\(target): \(RawSocket.body(answer))")
        }
        for host in ["127.0.0.1.evil.example", "localhost.evil.example:\(port)", "127.0.0.2:\(port)", "evil.example@127.0.0.1", "0.0.0.0:\(port)"] {
            #expect(RawSocket.status(try await Self.raw(port, "GET", "/api/sessions", headers: ["Host: \(host)"])) == 421, "Host: \(host)")
        }
        let twice = try await Self.raw(port, "GET", "/api/sessions", headers: ["Host: 127.0.0.1:\(port)", "Host: evil.example"])
        #expect(RawSocket.status(twice) == 421 || RawSocket.status(twice) == 400)
        // A steering request through a rebound name is refused before anything happens.
        let start = try await Self.raw(
            port, "POST", "/api/sessions", headers: ["Host: evil.example:\(port)", "Content-Type: application/json"], body: #"{"config_path":"ralph.yml","prompt":"x"}"#
        )
        #expect(RawSocket.status(start) == 421)
    }

    @Test("on a trusted loopback server a cross-site page cannot steer a run or start one, while every client of ours still can")
    func crossSiteWritesRefused() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.2")
        let started = try await h.startRun()
        let port = h.server.port
        let host = "Host: 127.0.0.1:\(port)"
        let steer = "/api/sessions/\(started.id)/steer"
        let evil = #"{"message":"EVIL guidance"}"#

        // What a page on another site can send without a preflight: a text/plain or form body, with its Origin.
        let attempts: [(headers: [String], status: Int)] = [
            ([host, "Content-Type: text/plain", "Origin: http://evil.example", "Sec-Fetch-Site: cross-site"], 403),
            ([host, "Content-Type: text/plain;charset=UTF-8", "Origin: http://evil.example"], 403),
            ([host, "Content-Type: application/x-www-form-urlencoded", "Sec-Fetch-Site: cross-site"], 403),
            ([host, "Content-Type: multipart/form-data; boundary=x", "Origin: null"], 403),
            // An old browser that sends neither Origin nor Sec-Fetch-Site is still stopped by the content type.
            ([host, "Content-Type: text/plain"], 415),
            ([host], 415),
            // JSON needs a preflight, but refuse it anyway from another origin or site.
            ([host, "Content-Type: application/json", "Origin: http://evil.example"], 403),
            ([host, "Content-Type: application/json", "Origin: http://localhost:3000", "Sec-Fetch-Site: same-site"], 403),
            ([host, "Content-Type: application/json", "Sec-Fetch-Site: same-site"], 403),
            ([host, "Content-Type: application/json", "Origin: http://127.0.0.1:\(port + 1)"], 403),
        ]
        for attempt in attempts {
            let answer = try await Self.raw(port, "POST", steer, headers: attempt.headers, body: evil)
            #expect(RawSocket.status(answer) == attempt.status, "\(attempt.headers): \(answer)")
            #expect(RawSocket.body(answer).hasPrefix(attempt.status == 403 ? #"{"error":"forbidden: "# : #"{"error":"unsupported_media_type: "#))
        }
        let startAttempt = try await Self.raw(
            port, "POST", "/api/sessions", headers: [host, "Content-Type: text/plain", "Origin: http://evil.example"],
            body: #"{"config_path":"ralph.yml","prompt":"EVIL run","working_dir":"proj"}"#
        )
        #expect(RawSocket.status(startAttempt) == 403)
        let pauseAttempt = try await Self.raw(port, "POST", "/api/sessions/\(started.id)/pause", headers: [host, "Origin: http://evil.example"])
        #expect(RawSocket.status(pauseAttempt) == 403)
        let stopAttempt = try await Self.raw(port, "DELETE", "/api/sessions/\(started.id)", headers: [host, "Sec-Fetch-Site: cross-site"])
        #expect(RawSocket.status(stopAttempt) == 403)

        // The dashboard (same origin), the SDK and curl (no Origin) go through.
        let dashboard = try await Self.raw(
            port, "POST", steer,
            headers: [host, "Content-Type: application/json", "Origin: http://127.0.0.1:\(port)", "Sec-Fetch-Site: same-origin"],
            body: #"{"message":"from the dashboard"}"#
        )
        #expect(RawSocket.status(dashboard) == 200, "\(dashboard)")
        let typedURL = try await Self.raw(port, "POST", steer, headers: [host, "Content-Type: application/json; charset=utf-8", "Sec-Fetch-Site: none"], body: #"{"message":"typed"}"#)
        #expect(RawSocket.status(typedURL) == 200)
        #expect(try await h.post(steer, #"{"message":"from a client"}"#).status == 200)
        // A request without a body needs no content type (the iOS app sends pause that way); browsers add Origin.
        let pause = try await Self.raw(port, "POST", "/api/sessions/\(started.id)/pause", headers: [host, "Origin: http://127.0.0.1:\(port)"])
        #expect(RawSocket.status(pause) == 200, "\(pause)")
        let resume = try await Self.raw(port, "POST", "/api/sessions/\(started.id)/resume", headers: [host])
        #expect(RawSocket.status(resume) == 200, "\(resume)")

        let events = try String(contentsOfFile: h.root + "/" + (try await h.status(started.id)).path, encoding: .utf8)
        #expect(!events.contains("EVIL"), "nothing a foreign page sent reached the run")
        #expect(events.contains("from the dashboard") && events.contains("from a client"))
        let sessions = try await HTTP.get(h.server.base + "/api/sessions").json([Session].self)
        #expect(sessions.count == 1, "no run was started")
    }

    /// The cookie rules of a server with a key are asked in process (RouterRuleTests); what needs a real `Host` stays here.
    @Test("with a key, a keyed request is served under any Host (a LAN server is reached by many names)")
    func keysWorkUnderAnyHost() async throws {
        let key = "admin-secret-for-cross-site-tests"
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data")) { $0.apiKey = key }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let keyed = try await Self.raw(
            server.port, "POST", "/api/keys", headers: ["Host: ralph.lan:8080", "X-Api-Key: \(key)", "Content-Type: application/json", "Origin: http://elsewhere"],
            body: #"{"role":"viewer"}"#
        )
        #expect(RawSocket.status(keyed) == 201)
    }
}
