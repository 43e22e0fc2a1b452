import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

@Suite("Onboarding: server address rules")
struct OnboardingAddressTests {
    @Test(
        "good addresses are normalised",
        arguments: [
            ("http://192.168.1.20:8080", "http://192.168.1.20:8080"),
            ("  HTTP://MacBook.local:8080/  ", "http://macbook.local:8080"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("http://localhost:8080", "http://localhost:8080"),
            ("http://studio:8080", "http://studio:8080"),
            ("http://10.0.0.5", "http://10.0.0.5"),
            ("http://172.20.1.1:9000", "http://172.20.1.1:9000"),
            ("http://100.101.102.103:8080", "http://100.101.102.103:8080"),
            ("http://[::1]:8080", "http://[::1]:8080"),
            ("http://[fe80::1]:8080", "http://[fe80::1]:8080"),
            ("https://ralph.example.com", "https://ralph.example.com"),
            ("https://example.com:8443/ralph/", "https://example.com:8443/ralph"),
            ("https://[2001:db8::1]:443", "https://[2001:db8::1]:443"),
        ]
    )
    func valid(text: String, url: String) throws {
        let address = try ServerAddress.parse(text).get()
        #expect(address.url == url)
        #expect(try RalphClient.normalize(address.url) == url, "the SDK accepts it as it is")
    }

    @Test(
        "each mistake has its own message",
        arguments: [
            ("", ServerAddressProblem.empty),
            ("   ", .empty),
            ("http://my host:8080", .containsSpaces),
            ("192.168.1.20:8080", .missingScheme(suggestion: "http://192.168.1.20:8080")),
            ("macbook.local:8080", .missingScheme(suggestion: "http://macbook.local:8080")),
            ("ralph.example.com", .missingScheme(suggestion: "https://ralph.example.com")),
            ("http:/192.168.1.20:8080", .malformedScheme),
            ("https:example.com", .malformedScheme),
            ("ftp://nas.local", .unsupportedScheme("ftp")),
            ("ws://127.0.0.1:8080", .unsupportedScheme("ws")),
            ("http://me:secret@127.0.0.1:8080", .credentials),
            ("http://", .missingHost),
            ("http://:8080", .missingHost),
            ("http://bad_host:8080", .invalidHost("bad_host")),
            ("http://-dash.local", .invalidHost("-dash.local")),
            ("http://300.1.1.1:8080", .invalidHost("300.1.1.1")),
            ("http://1.2.3:8080", .invalidHost("1.2.3")),
            ("http://[::1:8080", .invalidHost("[::1:8080")),
            ("http://[zz::1]:8080", .invalidHost("zz::1")),
            ("http://fe80::1:8080", .ipv6NeedsBrackets("fe80::1:8080")),
            ("http://127.0.0.1:", .invalidPort("")),
            ("http://127.0.0.1:99999", .invalidPort("99999")),
            ("http://127.0.0.1:0", .invalidPort("0")),
            ("http://127.0.0.1:80a", .invalidPort("80a")),
            ("http://127.0.0.1:8080/?x=1", .hasQuery),
            ("http://127.0.0.1:8080#top", .hasFragment),
            ("http://example.com:8080", .insecureRemote(host: "example.com", suggestion: "https://example.com:8080")),
            ("http://8.8.8.8", .insecureRemote(host: "8.8.8.8", suggestion: "https://8.8.8.8")),
            ("http://172.32.0.1", .insecureRemote(host: "172.32.0.1", suggestion: "https://172.32.0.1")),
            ("http://[2001:db8::1]", .insecureRemote(host: "2001:db8::1", suggestion: "https://[2001:db8::1]")),
        ]
    )
    func invalid(text: String, problem: ServerAddressProblem) {
        #expect(throws: problem) { try ServerAddress.parse(text).get() }
        #expect(!problem.description.isEmpty)
    }

    @Test("messages say what to do, and the obvious fix is offered")
    func messages() {
        #expect(ServerAddressProblem.invalidPort("99999").description.contains("1 to 65535"))
        #expect(ServerAddressProblem.insecureRemote(host: "example.com", suggestion: "https://example.com").description.contains("https://example.com"))
        #expect(ServerAddressProblem.missingScheme(suggestion: "http://10.0.0.2:8080").suggestion == "http://10.0.0.2:8080")
        #expect(ServerAddressProblem.unsupportedScheme("ftp").description.contains("ftp://"))
        #expect(ServerAddressProblem.credentials.suggestion == nil)
    }

    @Test("local means this device or the local network, as iOS's NSAllowsLocalNetworking counts it")
    func localHosts() {
        for host in ["localhost", "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.10", "169.254.1.1", "::1", "fe80::1", "fd12::1", "macbook", "macbook.local", "nas.home.arpa"] {
            #expect(ServerAddress.isLocal(host: host), "\(host) is local")
        }
        for host in ["example.com", "8.8.8.8", "172.15.0.1", "192.169.0.1", "2001:db8::1", "ralph.example.local.com"] {
            #expect(!ServerAddress.isLocal(host: host), "\(host) is not local")
        }
    }

    @Test("the sample addresses of the previews produce what the previews show")
    @MainActor
    func fixtures() throws {
        let app = AppModel.preview(servers: false)
        let results = AppFixtures.addressExamples.map { text -> Bool in
            let model = OnboardingModel(app: app, address: text)
            return model.addressProblem == nil
        }
        #expect(results == [true, false, false, false, false])
    }
}

@Suite("Onboarding against the real server", .serialized)
@MainActor
struct OnboardingServerTests {
    @Test("a server needing a key: no key asks for one, a wrong key is refused, the right one is saved and used")
    func keyFlow() async throws {
        let h = try await AppHarness.start(apiKey: "rmk_onboarding_admin_0123456789")
        defer { Task { await h.stop() } }
        let app = try h.app()
        let model = OnboardingModel(app: app, address: h.server.base)
        #expect(model.canSubmit)
        #expect(model.effectiveName == "127.0.0.1:\(h.server.port)")

        #expect(await model.submit() == nil)
        #expect(model.failure == .needsKey(url: h.server.base))
        #expect(model.failure?.field == .apiKey)
        #expect(model.keyRequired, "the health check said so")
        #expect(model.failure?.description.contains("keys create") == true)
        model.address = "http://10.0.0.9:8080"
        #expect(!model.keyRequired, "another address: what the other server said is forgotten")
        model.address = h.server.base

        model.apiKey = "rmk_wrong_key_0000000000000000"
        #expect(model.phase == .editing, "editing clears the failure")
        #expect(await model.submit() == nil)
        #expect(model.failure == .keyRefused(url: h.server.base))
        #expect(app.profiles.profiles.isEmpty, "nothing saved before the checks pass")

        model.apiKey = " rmk_onboarding_admin_0123456789 "
        model.name = "Laptop"
        let profile = try #require(await model.submit())
        #expect(model.phase == .saved(profile))
        #expect(profile.name == "Laptop" && profile.url == h.server.base && profile.hasKey)
        #expect(app.activeProfile == profile)
        #expect(app.status == .ready)
        #expect(app.whoAmI?.role == .admin && app.whoAmI?.via == "key")
        #expect(app.capabilities.canManageKeys)
        #expect(app.health?.version == RalphMobileVersion.current)
        #expect(try await app.client?.sessions() != nil, "the saved client works")

        // The same server again, or the same name: refused without a request.
        let again = OnboardingModel(app: app, address: h.server.base + "/", apiKey: "x")
        #expect(await again.submit() == nil)
        #expect(again.failure == .alreadySaved(name: "Laptop"))
        let open = try await AppHarness.start()
        defer { Task { await open.stop() } }
        let sameName = OnboardingModel(app: app, address: open.server.base, name: "Laptop")
        #expect(await sameName.submit() == nil)
        #expect(sameName.failure == .duplicateName("Laptop"))
        #expect(sameName.failure?.field == .name)
    }

    @Test("a server that is down is reported as such, and nothing is saved")
    func serverDown() async throws {
        let h = try await AppHarness.start()
        let base = h.server.base
        await h.stop()
        let app = try h.app()
        let model = OnboardingModel(app: app, address: base)
        #expect(await model.submit() == nil)
        guard case .serverDown(let url, let detail)? = model.failure else {
            Issue.record("expected serverDown, got \(String(describing: model.failure))")
            return
        }
        #expect(url == base)
        #expect(detail.contains("refused"))
        #expect(model.failure?.field == .address)
        #expect(model.failure?.description.contains("--bind-all") == true)
        #expect(app.profiles.profiles.isEmpty)
        #expect(app.status == .noServer)
    }

    @Test("a server that is not a Ralph Mobile server (the model API double) is told apart from one that is down")
    func notOurs() async throws {
        let tmp = TemporaryDirectory("rm-notours")
        let other = try await FakeAnthropic.start(log: tmp.path + "/log")
        defer { Task { await other.stop() } }
        let app = try AppModel(directory: tmp.subdirectory("state"), secrets: MemorySecretStore())
        let model = OnboardingModel(app: app, address: other.base)
        #expect(await model.submit() == nil)
        guard case .notRalphMobile(let url, _)? = model.failure else {
            Issue.record("expected notRalphMobile, got \(String(describing: model.failure))")
            return
        }
        #expect(url == other.base)
        #expect(model.failure?.description.contains("not a Ralph Mobile server") == true)
        #expect(app.profiles.profiles.isEmpty)
    }

    @Test("an invalid address fails at once, without a request, with the address's own message")
    func invalidAddress() async throws {
        let tmp = TemporaryDirectory("rm-invalid")
        let app = try AppModel(directory: tmp.path, secrets: MemorySecretStore())
        let model = OnboardingModel(app: app, address: "192.168.1.20:8080")
        #expect(model.addressProblem == .missingScheme(suggestion: "http://192.168.1.20:8080"))
        #expect(!model.canSubmit)
        #expect(await model.submit() == nil)
        #expect(model.failure == .invalidAddress(.missingScheme(suggestion: "http://192.168.1.20:8080")))
        model.applySuggestion()
        #expect(model.address == "http://192.168.1.20:8080")
        #expect(model.addressProblem == nil)
        #expect(OnboardingModel(app: app).addressProblem == nil, "nothing is said about an empty field")
        #expect(!OnboardingModel(app: app).canSubmit)
    }

    @Test("a trusted local server is saved without a key; several servers are saved and switched between")
    func severalServers() async throws {
        let keyed = try await AppHarness.start(apiKey: "rmk_switch_admin_0123456789abc")
        defer { Task { await keyed.stop() } }
        let open = try await AppHarness.start()
        defer { Task { await open.stop() } }
        let app = try keyed.app()

        let first = try #require(await OnboardingModel(app: app, address: open.server.base).submit())
        #expect(!first.hasKey)
        #expect(app.whoAmI?.via == "trusted" && app.whoAmI?.role == .admin)

        let viewer = try await keyed.createKey(.viewer, name: "phone")
        let second = try #require(await OnboardingModel(app: app, address: keyed.server.base, apiKey: viewer.secret).submit())
        #expect(app.activeProfile == second, "the server just added is the one in use")
        #expect(app.whoAmI?.role == .viewer)
        #expect(!app.capabilities.canSteer)
        #expect(ServerRow.rows(of: app.profiles).map(\.isActive) == [false, true])

        // Switching closes the feeds of the server left and reads who we are on the other.
        let list = SessionsListModel(client: try #require(app.client))
        list.policy = AppHarness.fastPolicy
        await list.start()
        app.feeds.register(list)
        try await AppHarness.until(10, "the list connected") { list.connection == .connected }
        try await app.switchServer(to: first.id)
        #expect(list.connection == .disconnected && !list.isPolling, "the old server's feed is closed")
        #expect(app.feeds.count == 0)
        #expect(app.client?.baseURL == open.server.base)
        #expect(app.whoAmI?.via == "trusted")
        #expect(app.capabilities.canStartRuns)
        #expect(ServerRow.rows(of: app.profiles).map(\.isActive) == [true, false])
        await #expect(throws: ProfileError.notFound("nope")) { try await app.switchServer(to: "nope") }
    }

    @Test("after ten wrong keys the server refuses for a while, and onboarding says to wait")
    func throttled() async throws {
        let h = try await AppHarness.start(apiKey: "rmk_throttle_admin_0123456789ab")
        defer { Task { await h.stop() } }
        let app = try h.app()
        let model = OnboardingModel(app: app, address: h.server.base, apiKey: "rmk_wrong_0000000000000000000")
        for _ in 0..<10 {
            #expect(await model.submit() == nil)
            #expect(model.failure == .keyRefused(url: h.server.base))
        }
        #expect(await model.submit() == nil)
        guard case .throttled? = model.failure else {
            Issue.record("expected throttled, got \(String(describing: model.failure))")
            return
        }
        #expect(model.failure?.description.contains("Wait a minute") == true)
    }
}
