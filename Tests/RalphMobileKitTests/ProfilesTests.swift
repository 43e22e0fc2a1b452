import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

@Suite("Server profiles and the secret store")
@MainActor
struct ProfilesTests {
    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }

    /// Profiles kept under the harness's `config` directory, with their keys in a secrets file there.
    static func profiles(in h: KitHarness) throws -> (dir: String, secrets: FileSecretStore, profiles: ServerProfiles) {
        let dir = h.tmp.subdirectory("config")
        let secrets = FileSecretStore(path: dir + "/secrets.json")
        return (dir, secrets, try ServerProfiles(file: dir + "/servers.json", secrets: secrets))
    }

    @Test("a server is saved only after its health check; the first one is the default; keys go to a 0600 file")
    func addChecksAndStores() async throws {
        let h = try await KitHarness.start(apiKey: "rmk_profile_key_0123456789")
        let (dir, secrets, profiles) = try Self.profiles(in: h)

        await #expect(throws: ProfileError.invalidURL("ftp://example.com")) { _ = try await profiles.add(name: nil, url: "ftp://example.com", apiKey: nil) }
        await #expect(throws: ProfileError.invalidURL("not a url")) { _ = try await profiles.add(name: nil, url: "not a url", apiKey: nil) }
        await #expect(throws: ProfileError.unreachable("http://127.0.0.1:1")) { _ = try await profiles.add(name: nil, url: "http://127.0.0.1:1", apiKey: nil) }
        await #expect(throws: ProfileError.needsKey(h.server.base)) { _ = try await profiles.add(name: "box", url: h.server.base, apiKey: nil) }
        await #expect(throws: ProfileError.keyRefused(h.server.base)) { _ = try await profiles.add(name: "box", url: h.server.base + "/", apiKey: "rmk_nope") }
        #expect(profiles.profiles.isEmpty, "nothing saved after failed checks")
        #expect(!FileManager.default.fileExists(atPath: dir + "/servers.json"))

        let box = try await profiles.add(name: "box", url: h.server.base + "/", apiKey: "rmk_profile_key_0123456789")
        #expect(box.url == h.server.base, "normalised")
        #expect(box.hasKey)
        #expect(profiles.active == box)
        await #expect(throws: ProfileError.duplicateName("box")) { _ = try await profiles.add(name: "box", url: h.server.base, apiKey: "rmk_profile_key_0123456789") }

        // The key is in the secrets file (0600), never in the profiles file.
        #expect(Self.mode(dir + "/secrets.json") == 0o600)
        let profilesText = try String(contentsOfFile: dir + "/servers.json", encoding: .utf8)
        #expect(!profilesText.contains("rmk_profile_key"))
        #expect(try secrets.secret(for: box.id) == "rmk_profile_key_0123456789")

        // Reloaded from disk, the client it gives works.
        let reloaded = try ServerProfiles(file: dir + "/servers.json", secrets: secrets)
        #expect(reloaded.profiles == [box])
        let client = try reloaded.client(for: try #require(reloaded.profile(named: "box")))
        #expect(try await client.sessions().isEmpty)

        // A second server, made the default, then removed with its key.
        let open = try await KitHarness.start()
        let second = try await reloaded.add(name: nil, url: open.server.base, apiKey: nil)
        #expect(second.name == "127.0.0.1:\(open.server.port)")
        #expect(!second.hasKey)
        #expect(reloaded.active == box, "the first server stays the default")
        try reloaded.use(second.name)
        #expect(reloaded.active == second)
        #expect(throws: ProfileError.notFound("nope")) { try reloaded.use("nope") }
        try reloaded.remove("box")
        #expect(try secrets.secret(for: box.id) == nil)
        #expect(reloaded.profiles == [second])
        await open.stop()
        await h.stop()
    }

    @Test("a profile whose key the secret store cannot forget is kept, and the error says why")
    func removeKeepsProfileWhenKeyStays() async throws {
        let h = try await KitHarness.start(apiKey: "rmk_profile_key_0123456789")
        let (dir, secrets, profiles) = try Self.profiles(in: h)
        let box = try await profiles.add(name: "box", url: h.server.base, apiKey: "rmk_profile_key_0123456789")
        // A secrets file others can read is refused by the store: the key cannot be removed from it.
        #expect(chmod(dir + "/secrets.json", 0o644) == 0)
        #expect {
            try profiles.remove("box")
        } throws: { error in
            guard case .storage(let text)? = error as? ProfileError else { return false }
            return text.contains("'box'") && text.contains("kept")
        }
        #expect(profiles.profiles == [box])
        #expect(try ServerProfiles(file: dir + "/servers.json", secrets: secrets).profiles == [box], "nothing written")
        #expect(chmod(dir + "/secrets.json", 0o600) == 0)
        try profiles.remove("box")
        #expect(try secrets.secret(for: box.id) == nil)
        #expect(profiles.profiles.isEmpty)
        await h.stop()
    }

    @Test("the secret store refuses a file others can read, and never overwrites one it cannot parse")
    func secretStoreSafety() throws {
        let tmp = TemporaryDirectory("rm-secrets")
        let path = tmp.path + "/secrets.json"
        let store = FileSecretStore(path: path)
        #expect(try store.secret(for: "a") == nil)
        try store.setSecret("one", for: "a")
        try store.setSecret("two", for: "b")
        #expect(Self.mode(path) == 0o600)
        #expect(try store.secret(for: "a") == "one")
        try store.removeSecret(for: "a")
        #expect(try store.secret(for: "a") == nil)
        #expect(try store.secret(for: "b") == "two")

        chmod(path, 0o644)
        #expect(throws: SecretStoreError.self) { try store.secret(for: "b") }
        #expect(throws: SecretStoreError.self) { try store.setSecret("x", for: "c") }
        chmod(path, 0o600)

        try "not json".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        #expect(throws: SecretStoreError.self) { try store.setSecret("x", for: "c") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not json", "left as it was")
    }

    @Test("a profiles file that is not one is an error, not an empty list")
    func corruptProfiles() throws {
        let tmp = TemporaryDirectory("rm-profiles")
        try "{oops".write(toFile: tmp.path + "/servers.json", atomically: false, encoding: .utf8)
        #expect(throws: ProfileError.self) { _ = try ServerProfiles(file: tmp.path + "/servers.json", secrets: FileSecretStore(path: tmp.path + "/s.json")) }
    }
}

@Suite("The HTTP client's URLs and errors")
struct ClientUnitTests {
    @Test("server URLs: http(s) with a host; trailing slashes dropped; anything else refused")
    func normalize() throws {
        #expect(try RalphClient.normalize("http://box:8080/") == "http://box:8080")
        #expect(try RalphClient.normalize(" https://box.example ") == "https://box.example")
        for bad in ["", "box:8080", "ftp://box", "http://", "http://box?x=1", "http://box#frag", "javascript:alert(1)"] {
            #expect(throws: RalphClientError.invalidURL(bad)) { _ = try RalphClient.normalize(bad) }
        }
    }

    @Test("path components are percent-encoded; queries too")
    func encoding() throws {
        #expect(RalphClient.component("a b/c?d#e") == "a%20b%2Fc%3Fd%23e")
        let client = try RalphClient(baseURL: "http://box:1")
        #expect(client.url("/api/tasks", query: [("workspace", "/my dir/a&b=c")]) == "http://box:1/api/tasks?workspace=/my%20dir/a%26b%3Dc")
    }

    @Test("errors are typed from status and prefix")
    func mapping() {
        func body(_ text: String) -> ErrorResponse { ErrorResponse(error: text) }
        #expect(RalphClientError.from(status: 401, body: body("unauthorized: missing key")) == .unauthorized)
        #expect(RalphClientError.from(status: 403, body: body("forbidden: needs operator")) == .forbidden("needs operator"))
        #expect(RalphClientError.from(status: 404, body: body("session_not_found: abc")) == .sessionNotFound("abc"))
        #expect(RalphClientError.from(status: 404, body: body("config_not_found: x.yml")) == .configNotFound("x.yml"))
        #expect(RalphClientError.from(status: 404, body: body("task_not_found: t1")) == .notFound(prefix: "task_not_found", detail: "t1"))
        #expect(RalphClientError.from(status: 404, body: nil) == .notFound(prefix: "not_found", detail: ""))
        #expect(RalphClientError.from(status: 400, body: body("invalid_path: ../x")) == .invalidPath("../x"))
        #expect(RalphClientError.from(status: 400, body: body("invalid_topic: bad")) == .invalidTopic("bad"))
        #expect(RalphClientError.from(status: 409, body: body("not_running: over")) == .notRunning("over"))
        #expect(RalphClientError.from(status: 409, body: body("conflict: already paused")) == .conflict("already paused"))
        #expect(RalphClientError.from(status: 500, body: body("failed_to_spawn: no ralph")) == .failedToSpawn("no ralph"))
        #expect(RalphClientError.from(status: 502, body: nil) == .server(status: 502, message: "HTTP 502"))
        #expect(RalphClientError.from(status: 502, body: nil).isTransient)
        #expect(!RalphClientError.unauthorized.isTransient)
        #expect(RalphClientError.unreachable("refused").isTransient)
    }
}
