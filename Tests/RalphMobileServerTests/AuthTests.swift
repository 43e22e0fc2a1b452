import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

@Suite("Authentication and roles")
struct AuthTests {
    static let adminKey = "admin-secret-for-tests"

    @Test("with a key configured, every /api route but /api/health needs one; header, bearer or SSE token")
    func keyRequired() async throws {
        let (h, id) = try await StreamHarness.keyed(Self.adminKey)
        defer { h.stop() }
        let base = h.server.base

        #expect(try await HTTP.get(base + "/health").status == 200)
        let health = try await HTTP.get(base + "/api/health")
        #expect(health.status == 200)
        #expect(try health.json(HealthResponse.self).authRequired)

        let anonymous = try await HTTP.get(base + "/api/sessions")
        #expect(anonymous.status == 401)
        #expect(anonymous.text == #"{"error":"unauthorized"}"#)
        #expect(anonymous.headers["www-authenticate"].first == "Bearer")
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("X-Api-Key", "wrong")]).status == 401)
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("X-Api-Key", Self.adminKey)]).status == 200)
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("Authorization", "Bearer \(Self.adminKey)")]).status == 200)
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("Authorization", "Basic \(Self.adminKey)")]).status == 401)
        // An X-Api-Key header is the key presented, even empty: another credential beside it is not looked at.
        #expect(try await HTTP.get(base + "/api/sessions", headers: [("X-Api-Key", ""), ("Authorization", "Bearer \(Self.adminKey)")]).status == 401)
        // A bad history is refused even beside a cursor that would make it unused.
        let badHistory = try await HTTP.get(base + "/api/sessions/\(id)/events?after=1&history=lots", headers: [("X-Api-Key", Self.adminKey)])
        #expect(badHistory.status == 400 && badHistory.text.contains("history must be"), "\(badHistory.text)")
        // Unknown routes do not reveal themselves to anonymous callers.
        #expect(try await HTTP.get(base + "/api/nothing-here").status == 401)

        // Browsers' EventSource cannot set headers: `token` works on the SSE routes, and only there.
        let stream = try await SSETestClient.connect(base + "/api/sessions/\(id)/events?token=\(Self.adminKey)")
        #expect(stream.status == 200)
        #expect(try await SSETestClient.connect(base + "/api/events?token=\(Self.adminKey)").status == 200)
        #expect(try await SSETestClient.connect(base + "/api/sessions/\(id)/events?token=wrong").status == 401)
        #expect(try await HTTP.get(base + "/api/sessions?token=\(Self.adminKey)").status == 401)
    }

    @Test("a loopback server without keys trusts callers until a key is created, e.g. by `keys create`")
    func trustedLoopbackUntilKeysExist() async throws {
        let tmp = TemporaryDirectory()
        let data = tmp.subdirectory("data")
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: data)
        defer { Task { await server.stop(); withExtendedLifetime(tmp) {} } }
        #expect(try await HTTP.get(server.base + "/api/sessions").status == 200)
        #expect(try await HTTP.get(server.base + "/api/keys").status == 200)

        // Another process (the CLI) writes the keys file; the running server picks it up.
        let cli = try KeyStore(path: data + "/keys.json")
        let (_, secret) = try cli.create(role: .operator, name: "cli")
        try await eventually(5, "the server to require keys") { try await HTTP.get(server.base + "/api/sessions").status == 401 }
        #expect(try await HTTP.get(server.base + "/api/sessions", headers: [("X-Api-Key", secret)]).status == 200)
        #expect(try await HTTP.get(server.base + "/api/keys", headers: [("X-Api-Key", secret)]).status == 403)
    }

    @Test("binding beyond loopback without a key refuses to start, with a message that says what to do")
    func refusesOpenBindWithoutKey() throws {
        let tmp = TemporaryDirectory()
        var configuration = ServerConfiguration(dataDirectory: tmp.subdirectory("data"))
        configuration.workspaces = [tmp.subdirectory("root")]
        configuration.host = "0.0.0.0"
        #expect {
            try RalphMobileServer(configuration: configuration)
        } throws: { error in
            "\(error)".contains("refusing to listen on 0.0.0.0 without an API key") && "\(error)".contains("keys create")
        }
        configuration.apiKey = "a-key-strong-enough-for-lan"
        _ = try RalphMobileServer(configuration: configuration)
        configuration.apiKey = nil
        configuration.host = "192.168.1.10"
        #expect(throws: StartupError.self) { try RalphMobileServer(configuration: configuration) }
        configuration.host = "127.0.0.1"
        _ = try RalphMobileServer(configuration: configuration)
    }

    @Test("a keys file other users can read is refused")
    func unsafeKeysFile() throws {
        let tmp = TemporaryDirectory()
        let data = tmp.subdirectory("data")
        Fixture.write(#"{"keys":[]}"#, to: data + "/keys.json")
        chmod(data + "/keys.json", 0o644)
        var configuration = ServerConfiguration(dataDirectory: data)
        configuration.workspaces = [tmp.subdirectory("root")]
        #expect {
            try RalphMobileServer(configuration: configuration)
        } throws: { error in
            "\(error)".contains("chmod 600")
        }
    }

    @Test("a missing or unknown workspace refuses to start")
    func badWorkspace() throws {
        let tmp = TemporaryDirectory()
        var configuration = ServerConfiguration(dataDirectory: tmp.subdirectory("data"))
        configuration.workspaces = [tmp.path + "/does-not-exist"]
        #expect {
            try RalphMobileServer(configuration: configuration)
        } throws: { error in
            "\(error)".contains("is not an existing directory")
        }
    }

    @Test("auth decisions: trust, key lookup, constant-time comparison")
    func authenticatorDecisions() throws {
        let tmp = TemporaryDirectory()
        let store = try KeyStore(path: tmp.path + "/keys.json")
        let sessions = try WebSessionStore(path: tmp.path + "/web-sessions.json")
        let trusted = Authenticator(keyStore: store, apiKey: nil, loopbackOnly: true, webSessions: sessions)
        #expect(!trusted.authRequired)
        #expect(trusted.identify(nil) == CallerIdentity(role: .admin, keyID: nil))
        let open = Authenticator(keyStore: store, apiKey: "cli-key", loopbackOnly: false, webSessions: sessions)
        #expect(open.authRequired)
        #expect(open.identify(nil) == nil)
        #expect(open.identify("") == nil)
        #expect(open.identify("cli-key")?.role == .admin)
        #expect(open.identify("cli-key ") == nil)
        let (key, secret) = try store.create(role: .viewer, name: nil)
        #expect(trusted.authRequired, "a key exists now")
        #expect(trusted.identify(secret) == CallerIdentity(role: .viewer, keyID: key.id))
        #expect(trusted.identify(String(secret.dropLast())) == nil)

        #expect(KeyStore.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!KeyStore.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!KeyStore.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(Role.admin.includes(.operator) && Role.operator.includes(.viewer) && !Role.viewer.includes(.operator))
    }
}
