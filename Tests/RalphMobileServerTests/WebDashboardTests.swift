import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The web dashboard's server side: static files with ETags, the login cookie, logout and who-am-I.
/// (The dashboard itself is tested in a real browser by Tests/Browser.)
@Suite("Web dashboard: assets and login")
struct WebDashboardTests {
    static let adminKey = "admin-secret-for-web-tests"

    static var sourceWeb: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/RalphMobileServer/Resources/web").path
    }

    static func cookie(from result: HTTPResult) -> String? {
        guard let header = result.headers["set-cookie"].first else { return nil }
        let pair = header.split(separator: ";").first.map(String.init) ?? ""
        guard pair.hasPrefix(WebSessionStore.cookieName + "=") else { return nil }
        return pair
    }

    @Test("the built-in dashboard is served with strong ETags, 304 revalidation, a strict CSP and no way out of its folder")
    func assets() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let base = server.base

        let page = try await HTTP.get(base + "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"].first == "text/html; charset=utf-8")
        #expect(page.text == (try String(contentsOfFile: Self.sourceWeb + "/index.html", encoding: .utf8)), "the bundled copy is the source file")
        let csp = page.headers["content-security-policy"].first ?? ""
        #expect(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"))
        #expect(page.headers["x-content-type-options"].first == "nosniff")
        let etag = try #require(page.headers["etag"].first)
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 26)
        #expect(page.headers["cache-control"].first == "no-cache")

        let again = try await HTTP.get(base + "/", headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(try await HTTP.get(base + "/", headers: [("If-None-Match", "W/\(etag), \"other\"")]).status == 304)
        #expect(try await HTTP.get(base + "/", headers: [("If-None-Match", "\"stale\"")]).status == 200)

        let script = try await HTTP.get(base + "/assets/js/app.js")
        #expect(script.status == 200 && script.headers["content-type"].first == "text/javascript; charset=utf-8")
        #expect(script.headers["content-security-policy"].isEmpty)
        // The service worker is served at the root, so that its scope is the whole dashboard.
        let worker = try await HTTP.get(base + "/sw.js")
        #expect(worker.status == 200 && worker.headers["content-type"].first == "text/javascript; charset=utf-8")
        #expect(worker.text == (try String(contentsOfFile: Self.sourceWeb + "/sw.js", encoding: .utf8)))
        let manifest = try await HTTP.get(base + "/manifest.webmanifest")
        #expect(manifest.headers["content-type"].first == "application/manifest+json")
        let icons = try #require((manifest.object as? [String: Any])?["icons"] as? [[String: Any]])
        for icon in icons {
            let src = try #require(icon["src"] as? String)
            let served = try await HTTP.get(base + src)
            #expect(served.status == 200, "\(src)")
        }
        let png = try await HTTP.get(base + "/assets/icons/icon-192.png")
        #expect(png.headers["content-type"].first == "image/png" && png.body.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // Asked for by browsers where no page names an icon (an image or JSON opened directly): the same PNG.
        let favicon = try await HTTP.get(base + "/favicon.ico")
        #expect(favicon.status == 200 && favicon.headers["content-type"].first == "image/png" && favicon.body == png.body)
        let head = try await HTTP.request(base + "/assets/js/app.js", method: .HEAD)
        #expect(head.status == 200 && head.headers["etag"].first == script.headers["etag"].first)

        let missing = try await HTTP.get(base + "/assets/js/nope.js")
        #expect(missing.status == 404 && missing.text == #"{"error":"not_found: no file /assets/js/nope.js in the dashboard"}"#)
        for path in ["/assets/../Package.swift", "/assets/%2e%2e/index.html", "/assets/.hidden", "/assets//js/app.js"] {
            #expect(try await HTTP.get(base + path).status == 404, "\(path)")
        }
        // The dashboard needs no key to load (it asks for one); the API behind it still does.
        #expect(try await HTTP.request(base + "/", method: .POST).status == 405)
    }

    @Test("--web-root serves a folder as it is edited; a folder that is not a dashboard refuses to start")
    func webRoot() async throws {
        let tmp = TemporaryDirectory()
        let web = tmp.subdirectory("web")
        try "<h1>one</h1>".write(toFile: web + "/index.html", atomically: true, encoding: .utf8)
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data")) { $0.webRoot = web }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let first = try await HTTP.get(server.base + "/")
        #expect(first.text == "<h1>one</h1>")
        try "<h1>two</h1>".write(toFile: web + "/index.html", atomically: true, encoding: .utf8)
        let second = try await HTTP.get(server.base + "/", headers: [("If-None-Match", first.headers["etag"].first ?? "")])
        #expect(second.status == 200 && second.text == "<h1>two</h1>")
        try "secret".write(toFile: tmp.path + "/outside.txt", atomically: true, encoding: .utf8)
        symlink(tmp.path + "/outside.txt", web + "/assets-link")
        try FileManager.default.createDirectory(atPath: web + "/assets", withIntermediateDirectories: true)
        symlink(tmp.path + "/outside.txt", web + "/assets/leak.txt")
        #expect(try await HTTP.get(server.base + "/assets/leak.txt").status == 404, "a symlink out of the folder is not followed")

        var configuration = ServerConfiguration(dataDirectory: tmp.subdirectory("data2"))
        configuration.workspaces = [tmp.subdirectory("root")]
        configuration.webRoot = tmp.subdirectory("empty")
        #expect {
            _ = try RalphMobileServer(configuration: configuration)
        } throws: { error in
            "\(error)".contains("has no index.html")
        }
    }

    @Test("login trades a key for an HttpOnly SameSite=Strict cookie that works for the API and EventSource; logout ends it")
    func loginCookie() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let file = Fixture.run(in: root + "/p", name: "events-20260101-000000.jsonl", lines: [Fixture.emit("task.start", "x")])
        let data = tmp.subdirectory("data")
        let server = try await LiveServer.start(workspaces: [root], dataDirectory: data) { $0.apiKey = Self.adminKey }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let base = server.base

        let wrong = try await HTTP.request(base + "/api/login", method: .POST, body: #"{"key":"nope"}"#)
        #expect(wrong.status == 401 && wrong.text == #"{"error":"unauthorized: that key is not valid on this server"}"#)
        #expect(wrong.headers["set-cookie"].isEmpty)
        #expect(try await HTTP.request(base + "/api/login", method: .POST, body: #"{"kee":"x"}"#).status == 400)
        #expect(!FileManager.default.fileExists(atPath: data + "/web-sessions.json"), "failed logins store nothing")

        let login = try await HTTP.request(base + "/api/login", method: .POST, body: #"{"key":"\#(Self.adminKey)"}"#)
        #expect(login.status == 200)
        let header = try #require(login.headers["set-cookie"].first)
        #expect(header.contains("HttpOnly") && header.contains("SameSite=Strict") && header.contains("Path=/") && header.contains("Max-Age=2592000"))
        let me = try login.json(WhoAmI.self)
        #expect(me.role == .admin && me.keyID == "cli" && me.via == "cookie" && me.authRequired)
        let cookie = try #require(Self.cookie(from: login))
        let token = String(cookie.dropFirst(WebSessionStore.cookieName.count + 1))
        let stored = try String(contentsOfFile: data + "/web-sessions.json", encoding: .utf8)
        #expect(!stored.contains(token), "only the token's digest is stored")
        let mode = try FileManager.default.attributesOfItem(atPath: data + "/web-sessions.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        #expect(try await HTTP.get(base + "/api/sessions", headers: [("Cookie", cookie)]).status == 200)
        #expect(try await HTTP.get(base + "/api/whoami", headers: [("Cookie", cookie)]).json(WhoAmI.self).via == "cookie")
        #expect(try await HTTP.get(base + "/api/whoami", headers: [("X-Api-Key", Self.adminKey)]).json(WhoAmI.self).via == "key")
        let stream = try await SSETestClient.connect(base + "/api/sessions/\(Fixture.id(file))/events", headers: [("Cookie", cookie)])
        #expect(stream.status == 200)
        stream.cancel()
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("Cookie", WebSessionStore.cookieName + "=" + String(repeating: "0", count: 64))]).status == 401)

        let logout = try await HTTP.request(base + "/api/logout", method: .POST, headers: [("Cookie", cookie)])
        #expect(logout.status == 200 && logout.text == #"{"status":"logged_out"}"#)
        #expect(logout.headers["set-cookie"].first?.contains("Max-Age=0") == true)
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("Cookie", cookie)]).status == 401, "the server forgot the login")
    }

    @Test("a cookie cannot make a change from another origin; the same origin can")
    func crossOrigin() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data")) { $0.apiKey = Self.adminKey }
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let base = server.base
        let login = try await HTTP.request(base + "/api/login", method: .POST, body: #"{"key":"\#(Self.adminKey)"}"#)
        let cookie = try #require(Self.cookie(from: login))

        let evil = try await HTTP.request(base + "/api/keys", method: .POST, headers: [("Cookie", cookie), ("Origin", "http://evil.example")], body: #"{"role":"admin"}"#)
        #expect(evil.status == 403 && evil.text == #"{"error":"forbidden: cross-origin request"}"#)
        #expect(server.server.keyStore.keys.isEmpty, "nothing was created")
        let evilLogin = try await HTTP.request(base + "/api/login", method: .POST, headers: [("Origin", "http://evil.example")], body: #"{"key":"\#(Self.adminKey)"}"#)
        #expect(evilLogin.status == 403 && evilLogin.headers["set-cookie"].isEmpty)
        #expect(try await HTTP.get(base + "/api/keys", headers: [("Cookie", cookie), ("Origin", "http://evil.example")]).status == 200, "reading is not a change")

        let same = try await HTTP.request(base + "/api/keys", method: .POST, headers: [("Cookie", cookie), ("Origin", base)], body: #"{"role":"viewer"}"#)
        #expect(same.status == 201)
        // A key in a header is not a browser's ambient credential: no origin rule for it.
        let keyed = try await HTTP.request(base + "/api/keys", method: .POST, headers: [("X-Api-Key", Self.adminKey), ("Origin", "http://evil.example")], body: #"{"role":"viewer"}"#)
        #expect(keyed.status == 201)
        #expect(server.server.keyStore.keys.count == 2)
    }

    @Test("a login survives a restart, follows its key's role, and ends when the key is revoked or --api-key changes")
    func loginLifecycle() async throws {
        let tmp = TemporaryDirectory()
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        var server = try await LiveServer.start(workspaces: [root], dataDirectory: data) { $0.apiKey = Self.adminKey }
        let (key, secret) = try server.server.keyStore.create(role: .viewer, name: "phone")
        let viewerLogin = try await HTTP.request(server.base + "/api/login", method: .POST, body: #"{"key":"\#(secret)"}"#)
        #expect(try viewerLogin.json(WhoAmI.self).role == .viewer)
        let viewerCookie = try #require(Self.cookie(from: viewerLogin))
        let adminCookie = try #require(Self.cookie(from: try await HTTP.request(server.base + "/api/login", method: .POST, body: #"{"key":"\#(Self.adminKey)"}"#)))
        #expect(try await HTTP.request(server.base + "/api/keys", method: .POST, headers: [("Cookie", viewerCookie)], body: #"{"role":"viewer"}"#).status == 403)
        await server.stop()

        server = try await LiveServer.start(workspaces: [root], dataDirectory: data) { $0.apiKey = Self.adminKey }
        #expect(try await HTTP.get(server.base + "/api/whoami", headers: [("Cookie", viewerCookie)]).json(WhoAmI.self).role == .viewer, "kept across the restart")
        #expect(try await HTTP.get(server.base + "/api/whoami", headers: [("Cookie", adminCookie)]).status == 200)
        let revoke = try await HTTP.request(server.base + "/api/keys/\(key.id)", method: .DELETE, headers: [("Cookie", adminCookie), ("Origin", server.base)])
        #expect(revoke.status == 200)
        #expect(try await HTTP.get(server.base + "/api/whoami", headers: [("Cookie", viewerCookie)]).status == 401, "its key is gone")
        await server.stop()

        let changed = try await LiveServer.start(workspaces: [root], dataDirectory: data) { $0.apiKey = "a-new-admin-key-for-web-tests" }
        defer { Task { await changed.stop(); withExtendedLifetime(tmp) {} } }
        #expect(try await HTTP.get(changed.base + "/api/whoami", headers: [("Cookie", adminCookie)]).status == 401, "--api-key changed")
    }

    @Test("on a trusted loopback server without keys the dashboard needs no login")
    func trusted() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data"))
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        let me = try await HTTP.get(server.base + "/api/whoami").json(WhoAmI.self)
        #expect(me == WhoAmI(role: .admin, keyID: nil, authRequired: false, via: "trusted"))
        let login = try await HTTP.request(server.base + "/api/login", method: .POST, body: #"{"key":"anything"}"#)
        #expect(login.status == 200 && login.headers["set-cookie"].isEmpty)
    }

    @Test("a web sessions file others can read, or that is not one, stops the server with the reason")
    func unsafeFile() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.path + "/web-sessions.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(#"{"sessions":{}}"#.utf8), attributes: [.posixPermissions: 0o644])
        #expect {
            _ = try WebSessionStore(path: path)
        } throws: { error in
            "\(error)".contains("can be read by other users")
        }
        chmod(path, 0o600)
        #expect(try WebSessionStore(path: path).count == 0)
        _ = FileManager.default.createFile(atPath: path, contents: Data("garbage".utf8), attributes: [.posixPermissions: 0o600])
        #expect {
            _ = try WebSessionStore(path: path)
        } throws: { error in
            "\(error)".contains("not a web sessions file")
        }
    }
}
