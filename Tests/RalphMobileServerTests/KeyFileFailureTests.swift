import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// A keys file that cannot be read fails closed: no key from it is accepted (a key revoked in it must not stay valid),
/// keyed requests get a 503 that says why, and the keys work again once the file can be read.
@Suite("Keys file failures")
struct KeyFileFailureTests {
    @Test("an unreadable keys file refuses every key from it until it can be read again")
    func storeFailsClosed() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.path + "/keys.json"
        let store = try KeyStore(path: path)
        let kept = try store.create(role: .viewer, name: "kept")
        let revoked = try store.create(role: .admin, name: "revoked")
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(store.authenticate(revoked.secret)?.id == revoked.key.id)

        // Someone revokes a key by editing the file, and breaks it.
        try Data("{\"keys\": [".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        guard case .failed(.unreadable) = store.reloadIfChanged() else { Issue.record("a broken keys file was not reported"); return }
        #expect(store.failure != nil)
        #expect(store.authenticate(revoked.secret) == nil)
        #expect(store.authenticate(kept.secret) == nil)
        #expect(!store.isEmpty, "the server must keep needing keys")
        guard case .stillFailing = store.reloadIfChanged() else { Issue.record("a failure goes on until the file is fixed"); return }

        // Readable by others: refused the same way.
        try good.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        guard case .failed(.unsafePermissions) = store.reloadIfChanged() else { Issue.record("a world-readable keys file was accepted"); return }
        #expect(store.authenticate(kept.secret) == nil)

        chmod(path, 0o600)
        #expect(store.reloadIfChanged() == .recovered)
        #expect(store.failure == nil)
        #expect(store.authenticate(kept.secret)?.id == kept.key.id)
        #expect(store.reloadIfChanged() == .unchanged)
    }

    @Test("keyed requests get 503 unavailable while the keys file cannot be read; --api-key still works")
    func serverAnswers503() async throws {
        let secret = Locked("")
        try await RouterHarness.test({ $0.apiKey = "cli-key-for-tests-0123456789" }, before: { tmp in
            let key = try KeyStore(path: tmp.path + "/data/keys.json").create(role: .viewer, name: "phone")
            secret.withLock { $0 = key.secret }
        }) { client, server in
            let keysFile = server.configuration.keysFile
            let viewer = [("X-Api-Key", secret.value)]
            #expect(try await client.send(.get, "/api/sessions", headers: viewer).status == .ok)
            let login = try await client.send(.post, "/api/login", headers: [("Origin", "http://localhost")], body: #"{"key":"\#(secret.value)"}"#)
            let cookie = try #require(login.headers[.setCookie]?.split(separator: ";").first.map(String.init))

            try Data("not json".utf8).write(to: URL(fileURLWithPath: keysFile))
            chmod(keysFile, 0o600)
            try await eventually(5, "the broken keys file is noticed") { server.keyStore.failure != nil }
            let refused = try await client.send(.get, "/api/sessions", headers: viewer)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.text == #"{"error":"unavailable: the server cannot read its keys file, so no key from it is accepted until it can (see the server log)"}"#)
            // A dashboard login made with a key from the file is refused the same way; a wrong key too (it may be right).
            #expect(try await client.send(.get, "/api/sessions", headers: [("Cookie", cookie)]).status == .serviceUnavailable)
            #expect(try await client.send(.get, "/api/sessions", headers: [("X-Api-Key", "rmk_wrong")]).status == .serviceUnavailable)
            let admin = [("X-Api-Key", "cli-key-for-tests-0123456789")]
            #expect(try await client.send(.get, "/api/sessions", headers: admin).status == .ok)
            #expect(try await client.send(.get, "/api/keys", headers: admin).status == .serviceUnavailable)
            #expect(try await client.send(.post, "/api/keys", headers: admin, body: #"{"role":"viewer"}"#).status == .internalServerError)

            try Data(#"{"keys":[]}"#.utf8).write(to: URL(fileURLWithPath: keysFile))
            chmod(keysFile, 0o600)
            try await eventually(5, "the fixed keys file is read again") { server.keyStore.failure == nil }
            // The key is gone from the fixed file: 401 now, not 503.
            #expect(try await client.send(.get, "/api/sessions", headers: viewer).status == .unauthorized)
        }
    }
}
