import Foundation
import HTTPTypes
import HummingbirdTesting
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Request/response rules asked in process (no socket, so in parallel): key management and roles, key guessing (429),
/// cookie requests from other sites (403/415), bodies over the limit (413) and validation errors (400). Moved from
/// the real-socket suites (AuthTests, LoginThrottleTests, CrossSiteTests) unchanged in what they check.
@Suite("Request rules, in process")
struct RouterRuleTests {
    static let adminKey = "admin-secret-for-router-rule-tests"
    static let origin = "http://localhost"

    @Test("revoking by prefix: under 4 characters names no key, a prefix of two keys names neither")
    func revokeByPrefix() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.path + "/keys.json"
        let store = try KeyStore(path: path)
        _ = try store.create(role: .viewer, name: "a")
        _ = try store.create(role: .viewer, name: "b")
        // Two ids sharing their first four hex digits.
        var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var keys = try #require(file["keys"] as? [[String: Any]])
        keys[0]["id"] = "k_abcd1111"
        keys[1]["id"] = "k_abcd2222"
        file["keys"] = keys
        try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: path))
        let reread = try KeyStore(path: path)
        #expect(throws: KeyStore.KeyError.ambiguous("abcd")) { try reread.revoke("abcd") }
        #expect(throws: KeyStore.KeyError.notFound("abc")) { try reread.revoke("abc") }
        #expect(try reread.revoke("abcd1").id == "k_abcd1111")
        #expect(try reread.revoke("k_abcd2222").name == "b")
    }

    @Test("roles: admins manage keys, viewers and operators get 403, revoked keys stop working at once")
    func rolesAndKeyManagement() async throws {
        try await RouterHarness.test({ $0.apiKey = Self.adminKey }) { client, server in
            let admin = [("X-Api-Key", Self.adminKey)]
            let created = try await client.send(.post, "/api/keys", headers: admin, body: #"{"role":"viewer","name":"phone"}"#)
            #expect(created.status == .created)
            let viewer = try WireJSON.decode(CreatedAPIKey.self, from: Data(created.text.utf8))
            #expect(viewer.key.role == .viewer && viewer.key.name == "phone" && viewer.secret.hasPrefix("rmk_"))
            #expect(created.headers[.location] == "/api/keys/\(viewer.key.id)")
            let operatorKey = try WireJSON.decode(
                CreatedAPIKey.self, from: Data(try await client.send(.post, "/api/keys", headers: admin, body: #"{"role":"operator"}"#).text.utf8)
            )

            #expect(try await client.send(.get, "/api/sessions", headers: [("X-Api-Key", viewer.secret)]).status == .ok)
            for secret in [viewer.secret, operatorKey.secret] {
                let forbidden = try await client.send(.get, "/api/keys", headers: [("X-Api-Key", secret)])
                #expect(forbidden.status == .forbidden)
                #expect(forbidden.text == #"{"error":"forbidden: needs admin"}"#)
            }
            let list = try WireJSON.decode(APIKeyList.self, from: Data(try await client.send(.get, "/api/keys", headers: admin).text.utf8))
            #expect(Set(list.keys.map(\.id)) == [viewer.key.id, operatorKey.key.id])
            #expect(!String(decoding: try WireJSON.encode(list), as: UTF8.self).contains("sha256"))

            let badRole = try await client.send(.post, "/api/keys", headers: admin, body: #"{"role":"root"}"#)
            #expect(badRole.status == .badRequest)
            #expect(try WireJSON.decode(ErrorResponse.self, from: Data(badRole.text.utf8)).prefix == .invalidBody)
            let notJSON = try await client.send(.post, "/api/keys", headers: admin, body: "{nope")
            #expect(notJSON.status == .badRequest)
            #expect(notJSON.text.hasPrefix(#"{"error":"invalid_body: "#))

            let revoked = try await client.send(.delete, "/api/keys/\(viewer.key.id)", headers: admin)
            #expect(revoked.status == .ok)
            #expect(try await client.send(.get, "/api/sessions", headers: [("X-Api-Key", viewer.secret)]).status == .unauthorized)
            #expect(try await client.send(.delete, "/api/keys/k_nothere", headers: admin).status == .notFound)
            // A prefix must say enough: under 4 characters it names no key, and one naming two keys is refused.
            let hex = operatorKey.key.id.dropFirst(2)
            #expect(try await client.send(.delete, "/api/keys/\(hex.prefix(3))", headers: admin).status == .notFound)
            let id = operatorKey.key.id
            #expect(KeyStore.names(String(hex.prefix(4)), keyID: id) && KeyStore.names("k_" + hex.prefix(4), keyID: id))
            #expect(!KeyStore.names(String(hex.prefix(3)), keyID: id) && KeyStore.names(String(hex), keyID: id))
            #expect(try await client.send(.delete, "/api/keys/\(hex.prefix(4))", headers: admin).status != .notFound, "4 characters are enough")
            let mode = try FileManager.default.attributesOfItem(atPath: server.configuration.keysFile)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test("after 10 wrong keys from an address, its attempts are refused with 429 and Retry-After, the right key included")
    func wrongKeysLockOut() async throws {
        try await RouterHarness.test({ $0.apiKey = Self.adminKey }) { client, _ in
            let key = Self.adminKey
            let login = try await client.send(.post, "/api/login", headers: [("Origin", Self.origin)], body: #"{"key":"\#(key)"}"#)
            let cookie = try #require(login.headers[.setCookie]?.split(separator: ";").first.map(String.init))

            // Asking without a key is not guessing: it never counts.
            for _ in 0..<20 { #expect(try await client.send(.get, "/api/sessions").status == .unauthorized) }
            #expect(try await client.send(.get, "/api/sessions", headers: [("X-Api-Key", key)]).status == .ok)

            for attempt in 0..<10 {
                let wrong = attempt % 2 == 0
                    ? try await client.send(.get, "/api/sessions", headers: [("X-Api-Key", "wrong-guess-\(attempt)")])
                    : try await client.send(.post, "/api/login", headers: [("Origin", Self.origin)], body: #"{"key":"guess-\#(attempt)"}"#)
                #expect(wrong.status == .unauthorized, "attempt \(attempt)")
            }
            let started = ContinuousClock.now
            for presented in [[("X-Api-Key", key)], [("Authorization", "Bearer \(key)")], [("X-Api-Key", "another-guess")]] {
                let refused = try await client.send(.get, "/api/sessions", headers: presented)
                #expect(refused.status == .tooManyRequests)
                #expect(refused.text.hasPrefix(#"{"error":"too_many_requests: "#), "\(refused.text)")
                let retryAfter = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
                #expect((1...60).contains(retryAfter))
            }
            let relogin = try await client.send(.post, "/api/login", headers: [("Origin", Self.origin)], body: #"{"key":"\#(key)"}"#)
            #expect(relogin.status == .tooManyRequests)
            #expect(ContinuousClock.now - started < .seconds(2), "refused at once, not delayed")
            // A browser already logged in is not locked out: its cookie is not a guess.
            #expect(try await client.send(.get, "/api/sessions", headers: [("Cookie", cookie)]).status == .ok)
        }
    }

    @Test("with a key, a cookie request that changes something must be same-origin JSON; a key works from any client")
    func cookieRequestsNeedTheOwnOrigin() async throws {
        try await RouterHarness.test({ $0.apiKey = Self.adminKey }) { client, _ in
            let login = try await client.send(.post, "/api/login", headers: [("Origin", Self.origin)], body: #"{"key":"\#(Self.adminKey)"}"#)
            let cookie = try #require(login.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let body = #"{"role":"viewer"}"#
            for headers in [
                [("Cookie", cookie), ("Content-Type", "application/json"), ("Sec-Fetch-Site", "same-site"), ("Origin", "http://localhost:3000")],
                [("Cookie", cookie), ("Content-Type", "application/json"), ("Sec-Fetch-Site", "same-site")],
            ] {
                #expect(try await client.send(.post, "/api/keys", headers: headers, body: body).status == .forbidden, "\(headers)")
            }
            let plain = try await client.send(.post, "/api/keys", headers: [("Cookie", cookie), ("Content-Type", "text/plain")], body: body)
            #expect(plain.status == .unsupportedMediaType)
            #expect(plain.text.hasPrefix(#"{"error":"unsupported_media_type: "#))
            let own = try await client.send(
                .post, "/api/keys", headers: [("Cookie", cookie), ("Content-Type", "application/json"), ("Origin", Self.origin), ("Sec-Fetch-Site", "same-origin")],
                body: body
            )
            #expect(own.status == .created)
            // A logout from another site does not end the login.
            let logout = try await client.send(.post, "/api/logout", headers: [("Cookie", cookie), ("Sec-Fetch-Site", "cross-site")])
            #expect(logout.status == .forbidden)
            #expect(logout.text.hasPrefix(#"{"error":"forbidden: "#))
            #expect(try await client.send(.get, "/api/whoami", headers: [("Cookie", cookie)]).status == .ok)
            // Keys are explicit: any client, any Origin.
            let keyed = try await client.send(
                .post, "/api/keys", headers: [("X-Api-Key", Self.adminKey), ("Content-Type", "application/json"), ("Origin", "http://elsewhere")], body: body
            )
            #expect(keyed.status == .created)
        }
    }

    @Test("a declared body over 2 MB is 413 payload_too_large with Connection: close, before it is read")
    func declaredBodyTooLarge() async throws {
        try await RouterHarness.test { client, _ in
            let big = #"{"content":""# + String(repeating: "x", count: 3 << 20) + #""}"#
            let declared = try await client.send(.put, "/api/memories", body: big)
            #expect(declared.status == .contentTooLarge)
            #expect(declared.text == #"{"error":"payload_too_large: bodies are limited to 2 MB"}"#)
            #expect(declared.headers[.connection] == "close")
            // Just under the limit is still a body like any other (here: not a valid key request).
            #expect(try await client.send(.post, "/api/keys", body: #"{"role":"nope"}"#).status == .badRequest)
        }
    }

    @Test("text limits: one TextLimit per kind of text, the same messages as before")
    func textLimits() async throws {
        try await RouterHarness.test { client, _ in
            let json = [("Content-Type", "application/json")]
            let longName = try await client.send(.post, "/api/keys", headers: json, body: #"{"role":"viewer","name":"\#(String(repeating: "n", count: 201))"}"#)
            #expect(longName.text == #"{"error":"invalid_body: name is longer than 200 characters"}"#)
            let title = try await client.send(.post, "/api/tasks", headers: json, body: #"{"title":"\#(String(repeating: "t", count: 4097))"}"#)
            #expect(title.text == #"{"error":"invalid_body: title is longer than 4096 bytes"}"#)
            let description = try await client.send(
                .post, "/api/tasks", headers: json, body: #"{"title":"t","description":"\#(String(repeating: "d", count: 64 * 1024 + 1))"}"#
            )
            #expect(description.text == #"{"error":"invalid_body: description is longer than 64 KiB"}"#)
            let config = try await client.send(.post, "/api/config/import", headers: json, body: #"{"content":"\#(String(repeating: "c", count: (1 << 20) + 1))"}"#)
            #expect(config.text == #"{"error":"invalid_body: content is larger than 1 MiB"}"#)
            let prompt = try await client.send(.post, "/api/loops", headers: json, body: #"{"prompt":"\#(String(repeating: "p", count: 64 * 1024 + 1))"}"#)
            #expect(prompt.text == #"{"error":"invalid_body: prompt is longer than 65536 bytes"}"#)
            let blank = try await client.send(.post, "/api/robot/guidance", headers: json, body: #"{"guidance_text":"  "}"#)
            #expect(blank.text == #"{"error":"invalid_body: guidance_text cannot be empty"}"#)
            let nul = try await client.send(.post, "/api/robot/guidance", headers: json, body: #"{"guidance_text":"a\u0000b"}"#)
            #expect(nul.text == #"{"error":"invalid_body: guidance_text contains a NUL character"}"#)
        }
    }
}
