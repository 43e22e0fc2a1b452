import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

@Suite("The app model: servers, identity, log out, theme", .serialized)
@MainActor
struct AppModelTests {
    @Test("without a server the app needs onboarding; the viewer's capabilities hold until whoami answers")
    func empty() throws {
        let tmp = TemporaryDirectory("rm-appmodel")
        let app = try AppModel(directory: tmp.path, secrets: MemorySecretStore())
        #expect(app.needsOnboarding)
        #expect(app.status == .noServer)
        #expect(app.client == nil && app.whoAmI == nil)
        #expect(app.capabilities == Capabilities(role: .viewer))
        #expect(app.status.title == "No server")
    }

    @Test("a saved server is connected at launch: health, version and who we are, per role")
    func launch() async throws {
        let h = try await AppHarness.start(apiKey: "rmk_launch_admin_0123456789abcd")
        defer { Task { await h.stop() } }
        let op = try await h.createKey(.operator, name: "phone")
        let directory = h.tmp.subdirectory("state-launch")
        let secrets = MemorySecretStore()
        do {
            let first = try AppModel(directory: directory, secrets: secrets)
            _ = try await first.profiles.add(name: "box", url: h.server.base, apiKey: op.secret)
        }
        // A new launch over the same files.
        let app = try AppModel(directory: directory, secrets: secrets)
        #expect(!app.needsOnboarding)
        #expect(app.status == .connecting)
        await app.start()
        #expect(app.status == .ready)
        #expect(app.status.isReady && app.status.title == nil)
        #expect(app.health?.version == RalphMobileVersion.current)
        #expect(app.health?.authRequired == true)
        #expect(app.whoAmI == WhoAmI(role: .operator, keyID: op.key.id, authRequired: true, via: "key"))
        #expect(app.capabilities.canSteer && app.capabilities.canChat)
        #expect(!app.capabilities.canStartRuns && !app.capabilities.canManageKeys)
        #expect(app.compatibilityNote == nil)
    }

    @Test("a revoked key shows as refused and clears who we were; a server that went away shows as unreachable")
    func statusAfterFailures() async throws {
        let server = try await AppHarness.start(apiKey: "rmk_status_admin_0123456789abcd")
        let op = try await server.createKey(.operator)
        let app = try await server.connectedApp(key: op.secret)
        #expect(app.whoAmI?.role == .operator)

        try await server.client().revokeKey(op.key.id)
        await app.refresh()
        #expect(app.status == .keyRefused)
        #expect(app.whoAmI == nil)
        #expect(app.capabilities == Capabilities(role: .viewer), "nothing is shown on a guess")
        #expect(app.status.message?.contains("revoked") == true)
        #expect(SettingsModel(app: app).canLogOut, "a refused key can still be logged out of")

        await server.stop()
        await app.refresh()
        guard case .unreachable(let why) = app.status else {
            Issue.record("expected unreachable, got \(app.status)")
            return
        }
        #expect(why.contains("refused"))
        #expect(app.status.message?.contains("running") == true)
    }

    @Test("log out forgets the key and the server, closes its feeds and returns its address for onboarding")
    func logOut() async throws {
        let h = try await AppHarness.start(apiKey: "rmk_logout_admin_0123456789abcd")
        defer { Task { await h.stop() } }
        let directory = h.tmp.subdirectory("state-logout")
        let secrets = MemorySecretStore()
        let app = try AppModel(directory: directory, secrets: secrets)
        let profile = try await app.profiles.add(name: "box", url: h.server.base, apiKey: "rmk_logout_admin_0123456789abcd")
        await app.serverAdded(profile)
        #expect(try secrets.secret(for: profile.id) != nil)
        let list = SessionsListModel(client: try #require(app.client))
        list.policy = AppHarness.fastPolicy
        await list.start()
        app.feeds.register(list)
        try await AppHarness.until(10, "connected") { list.connection == .connected }

        let address = try await app.logOut()
        #expect(address == h.server.base)
        #expect(try secrets.secret(for: profile.id) == nil, "the key is gone from the secret store")
        #expect(app.needsOnboarding && app.status == .noServer)
        #expect(app.client == nil && app.whoAmI == nil)
        #expect(list.connection == .disconnected, "its feed is closed")
        #expect(app.feeds.count == 0)
        // The files say the same after a relaunch.
        #expect(try AppModel(directory: directory, secrets: secrets).needsOnboarding)
        #expect(try await app.logOut() == nil, "nothing to log out of")
    }

    /// A secret store that keeps keys but cannot delete them (a locked keychain).
    struct StubbornSecretStore: SecretStore {
        struct Locked: Error, CustomStringConvertible { var description: String { "the keychain is locked" } }
        let kept = MemorySecretStore()
        func secret(for account: String) throws -> String? { try kept.secret(for: account) }
        func setSecret(_ secret: String, for account: String) throws { try kept.setSecret(secret, for: account) }
        func removeSecret(for account: String) throws { throw Locked() }
    }

    @Test("log out and remove with a key the store cannot forget: the server is kept, connected again, and the error says why")
    func keyNotForgotten() async throws {
        let h = try await AppHarness.start(apiKey: "rmk_stubborn_admin_0123456789ab")
        defer { Task { await h.stop() } }
        let secrets = StubbornSecretStore()
        let app = try AppModel(directory: h.tmp.subdirectory("state-stubborn"), secrets: secrets)
        let profile = try await app.profiles.add(name: "box", url: h.server.base, apiKey: "rmk_stubborn_admin_0123456789ab")
        await app.serverAdded(profile)
        #expect(app.client?.baseURL == h.server.base)
        for attempt in ["log out", "remove"] {
            await #expect(throws: ProfileError.self, "\(attempt)") {
                if attempt == "log out" { _ = try await app.logOut() } else { try await app.removeServer(profile.id) }
            }
            #expect(app.profiles.profiles == [profile], "\(attempt): kept")
            #expect(app.activeProfile == profile && app.client?.baseURL == h.server.base, "\(attempt): connected again")
            #expect(try secrets.secret(for: profile.id) == "rmk_stubborn_admin_0123456789ab")
        }
    }

    @Test("removing the active server switches to the next one")
    func removeActive() async throws {
        let a = try await AppHarness.start()
        defer { Task { await a.stop() } }
        let b = try await AppHarness.start()
        defer { Task { await b.stop() } }
        let app = try a.app()
        let first = try await app.profiles.add(name: "a", url: a.server.base, apiKey: nil)
        let second = try await app.profiles.add(name: "b", url: b.server.base, apiKey: nil)
        await app.activate(second)
        #expect(app.client?.baseURL == b.server.base)
        try await app.removeServer(second.id)
        #expect(app.activeProfile == first)
        #expect(app.client?.baseURL == a.server.base)
        #expect(app.status == .ready)
        try await app.removeServer(first.id)
        #expect(app.needsOnboarding && app.client == nil)
    }

    @Test("the theme is remembered across launches")
    func themePersisted() throws {
        let tmp = TemporaryDirectory("rm-theme")
        let app = try AppModel(directory: tmp.path, secrets: MemorySecretStore())
        #expect(app.theme == .cyberpunk)
        app.theme = .contrast
        #expect(try AppModel(directory: tmp.path, secrets: MemorySecretStore()).theme == .contrast)
        let settings = SettingsModel(app: app)
        settings.theme = .cyberpunk
        #expect(app.theme == .cyberpunk)
        #expect(try AppModel(directory: tmp.path, secrets: MemorySecretStore()).theme == .cyberpunk)
    }

    @Test("an unreadable servers file is kept aside and the app starts without servers, saying so")
    func unreadableServersFile() throws {
        let tmp = TemporaryDirectory("rm-broken")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: tmp.path + "/servers.json"))
        #expect(throws: ProfileError.self) { try AppModel(directory: tmp.path, secrets: MemorySecretStore()) }
        let app = AppModel.open(directory: tmp.path, secrets: MemorySecretStore())
        #expect(app.needsOnboarding)
        #expect(app.notice?.contains("could not be read") == true)
        let kept = try FileManager.default.contentsOfDirectory(atPath: tmp.path).filter { $0.hasPrefix("servers.json.unreadable-") }
        #expect(kept.count == 1)
        #expect(try String(contentsOfFile: tmp.path + "/" + kept[0], encoding: .utf8) == "not json", "kept as it was")
    }

    @Test("launch options: UI tests start clean, with the server's address filled in")
    func launchOptions() {
        let normal = AppLaunchOptions(arguments: ["RalphMobile"], environment: [:])
        #expect(!normal.isUITesting && !normal.keepsKeysInMemory && normal.serverURL == nil)
        #expect(normal.storageDirectory(standard: "/app", temporary: "/tmp", runID: "1") == "/app")
        let ui = AppLaunchOptions(
            arguments: ["RalphMobile", "-ui-testing"], environment: ["RALPH_MOBILE_SERVER_URL": "http://127.0.0.1:8080", "RALPH_MOBILE_API_KEY": ""]
        )
        #expect(ui.isUITesting && ui.keepsKeysInMemory)
        #expect(ui.serverURL == "http://127.0.0.1:8080")
        #expect(ui.apiKey == nil, "an empty variable is no key")
        #expect(ui.storageDirectory(standard: "/app", temporary: "/tmp", runID: "1") == "/tmp/ralph-mobile-ui-tests/1")
    }

    @Test("sections: five tabs as on the web dashboard; the sidebar adds New run for those who may start runs; the approvals badge")
    func sections() {
        for role in Role.allCases {
            #expect(AppSection.tabs(for: Capabilities(role: role)) == [.sessions, .conversations, .approvals, .library, .settings])
        }
        #expect(AppSection.sidebar(for: Capabilities(role: .admin)).contains(.newRun))
        #expect(!AppSection.sidebar(for: Capabilities(role: .operator)).contains(.newRun))
        #expect(!AppSection.sidebar(for: Capabilities(role: .viewer)).contains(.newRun))
        #expect(AppSection.approvalsBadge(pending: 0) == nil)
        #expect(AppSection.approvalsBadge(pending: 7) == "7")
        #expect(AppSection.approvalsBadge(pending: 150) == "99+")
        #expect(AppSection.approvals.accessibilityLabel(pendingApprovals: 3) == "Approvals, 3 waiting")
        #expect(AppSection.sessions.accessibilityLabel(pendingApprovals: 3) == "Sessions")
        #expect(Set(AppSection.allCases.map(\.systemImage)).count == AppSection.allCases.count)
        #expect(AccessibilityID.section(.approvals) == "section.approvals")
    }

    @Test("the server list rows say what each server is and ask before removing")
    func serverRows() throws {
        let app = AppModel.preview()
        let rows = ServerRow.rows(of: app.profiles)
        #expect(rows.map(\.name) == ["MacBook", "Studio"])
        #expect(rows.map(\.isActive) == [true, false])
        #expect(rows[0].transport == "Local network (http)" && rows[1].transport == "Encrypted (https)")
        #expect(rows[0].accessibilityLabel.hasSuffix(", in use"))
        #expect(rows[0].removeConfirmation.contains("API key is deleted") && rows[0].removeConfirmation.contains("switches"))
        #expect(!rows[1].removeConfirmation.contains("switches"))
    }

    @Test("the preview app is what a connected app looks like")
    func preview() {
        let app = AppModel.preview(role: .operator)
        #expect(app.status == .ready)
        #expect(app.activeProfile?.name == "MacBook")
        #expect(app.capabilities.canSteer && !app.capabilities.canStartRuns)
        #expect(AppModel.preview(servers: false).needsOnboarding)
    }
}
