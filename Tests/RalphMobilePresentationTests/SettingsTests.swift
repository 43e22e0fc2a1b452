import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

@Suite("Settings and admin against the real server", .serialized)
@MainActor
struct SettingsTests {
    static let adminKey = "rmk_settings_admin_0123456789abc"

    @Test("the server, who you are and your role, as rows")
    func aboutRows() async throws {
        let h = try await AppHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        let op = try await h.createKey(.operator, name: "phone")
        let settings = SettingsModel(app: try await h.connectedApp(key: op.secret))
        let server = Dictionary(uniqueKeysWithValues: settings.serverRows.map { ($0.label, $0.value) })
        #expect(server["Server"] == "test")
        #expect(server["Address"] == h.server.base)
        #expect(server["Version"] == RalphMobileVersion.current)
        #expect(server["Protocol"] == String(RalphMobileVersion.protocolVersion))
        #expect(server["Access"] == "Every request needs an API key.")
        #expect(settings.serverCapabilities.contains("sessions"))
        let you = Dictionary(uniqueKeysWithValues: settings.youRows.map { ($0.label, $0.value) })
        #expect(you["Role"] == "operator")
        #expect(you["Key"] == op.key.id)
        #expect(you["How"]?.contains("Keychain") == true)
        #expect(settings.roleDescription.hasPrefix("Operator:"))
        #expect(settings.canLogOut)
        #expect(settings.logOutConfirmation.contains("test"))
        #expect(!settings.showsKeys, "keys are for admins")
        await settings.loadKeys()
        #expect(settings.keysState == .idle, "not even asked for")
    }

    @Test("an admin lists, creates (the secret shown once) and revokes keys")
    func keys() async throws {
        let h = try await AppHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        let settings = SettingsModel(app: try await h.connectedApp())
        settings.now = { Date(timeIntervalSince1970: 1_900_000_000) }
        settings.timeZone = TimeZone(identifier: "UTC")!
        #expect(settings.showsKeys)
        settings.newKeyRole = .viewer
        settings.newKeyName = "left over"
        settings.startNewKey()
        #expect(settings.newKeyRole == .operator, "operator is offered first")
        #expect(settings.newKeyName.isEmpty)
        #expect(settings.createKeyWarning == nil)
        await settings.loadKeys()
        #expect(settings.keysState == .loaded)
        #expect(settings.keys.isEmpty)
        #expect(settings.emptyKeysMessage?.contains("--api-key") == true, "the key in use comes from --api-key")
        let me = Dictionary(uniqueKeysWithValues: settings.youRows.map { ($0.label, $0.value) })
        #expect(me["Key"] == "cli (the server's --api-key)")

        settings.newKeyName = String(repeating: "n", count: 201)
        #expect(settings.newKeyNameProblem != nil && !settings.canCreateKey)
        #expect(await settings.createKey() == false)
        settings.newKeyName = "  phone  "
        settings.newKeyRole = .viewer
        #expect(await settings.createKey())
        let created = try #require(settings.createdKey)
        #expect(created.key.name == "phone" && created.key.role == .viewer)
        #expect(created.secret.count >= 20)
        #expect(settings.newKeyName.isEmpty)
        #expect(settings.keys.map(\.id) == [created.key.id], "listed at once")
        #expect(try await h.client(key: created.secret).whoAmI().role == .viewer, "the secret works")
        settings.dismissCreatedKey()
        #expect(settings.createdKey == nil)

        settings.newKeyName = ""
        settings.newKeyRole = .operator
        #expect(await settings.createKey())
        let second = try #require(settings.createdKey)
        #expect(second.key.name == nil)
        let rows = settings.keyRows
        #expect(rows.count == 2)
        #expect(rows.map(\.name).sorted() == ["phone", "unnamed"])
        #expect(rows.allSatisfy { !$0.isMine })
        #expect(rows.allSatisfy { $0.createdRelative.hasSuffix("ago") || $0.createdRelative == "just now" })
        let phone = try #require(rows.first { $0.name == "phone" })
        #expect(settings.revokeConfirmation(for: phone).contains("loses access"))
        #expect(!settings.revokeConfirmation(for: phone).contains("logged out"))

        #expect(await settings.revoke(phone.id))
        #expect(settings.keys.map(\.id) == [second.key.id])
        await #expect(throws: RalphClientError.unauthorized) { try await h.client(key: created.secret).whoAmI() }
        #expect(await settings.revoke(phone.id) == false, "already revoked")
        #expect(settings.lastError?.contains("Could not revoke") == true)
    }

    @Test("revoking the key this device uses logs out")
    func revokeOwnKey() async throws {
        let h = try await AppHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        let admin = try await h.createKey(.admin, name: "this phone")
        let app = try await h.connectedApp(key: admin.secret)
        let settings = SettingsModel(app: app)
        await settings.loadKeys()
        let mine = try #require(settings.keyRows.first { $0.isMine })
        #expect(mine.id == admin.key.id)
        #expect(mine.accessibilityLabel.contains("the key this device uses"))
        #expect(settings.revokeConfirmation(for: mine).contains("you will be logged out"))
        #expect(await settings.revoke(mine.id))
        #expect(app.needsOnboarding && app.client == nil)
    }

    @Test("on a trusted server the first key is admin by default, and can be used on this device at once")
    func firstKeyOfTrustedServer() async throws {
        let h = try await AppHarness.start()
        defer { Task { await h.stop() } }
        let app = try await h.connectedApp()
        let settings = SettingsModel(app: app)
        #expect(app.whoAmI?.via == "trusted")
        settings.startNewKey()
        #expect(settings.newKeyRole == .admin)
        #expect(settings.createKeyWarning?.contains("every request needs a key") == true)
        #expect(!settings.canLogOut, "nothing to log out of")
        let you = Dictionary(uniqueKeysWithValues: settings.youRows.map { ($0.label, $0.value) })
        #expect(you["Key"] == "none")
        await settings.loadKeys()
        #expect(settings.emptyKeysMessage?.contains("--bind-all") == true)

        #expect(await settings.createKey())
        #expect(settings.createdOnTrustedServer)
        // The server asks for keys now: this device, without one, is refused.
        await app.refresh()
        #expect(app.status == .keyRefused)
        #expect(!settings.canLogOut, "no key saved for it: remove it from Servers instead")

        #expect(await settings.useCreatedKeyHere())
        #expect(app.status == .ready)
        #expect(app.whoAmI?.via == "key" && app.whoAmI?.role == .admin)
        #expect(app.activeProfile?.hasKey == true)
        #expect(app.profiles.profiles.count == 1)
        #expect(settings.createdKey == nil)
        #expect(settings.canLogOut)
    }

    @Test("key rows: dates in the device's time zone, relative ages, unnamed keys")
    func keyRows() throws {
        let now = try #require(Timestamp.parse("2026-11-23T13:40:00Z"))
        let utc = try #require(TimeZone(identifier: "UTC"))
        let rows = AppFixtures.keys.map { KeyRow($0, isMine: $0.id == "key-2f9c", now: now, timeZone: utc) }
        #expect(rows.map(\.created) == ["2026-11-23 12:30", "2026-11-20 09:00", "2026-10-02 17:45"])
        #expect(rows.map(\.createdRelative) == ["1 h ago", "3 days ago", "51 days ago"])
        #expect(rows.map(\.name) == ["phone", "ci-bot", "unnamed"])
        #expect(rows.map(\.isMine) == [true, false, false])
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        #expect(KeyRow(AppFixtures.keys[0], isMine: false, now: now, timeZone: paris).created == "2026-11-23 13:30")
        #expect(KeyRow.relative(now, now: now) == "just now")
        #expect(KeyRow.relative(now.addingTimeInterval(-300), now: now) == "5 min ago")
        #expect(KeyRow.relative(now.addingTimeInterval(60), now: now) == "just now", "a clock ahead of ours")
    }

    @Test("the preview settings show an admin's keys")
    func preview() {
        let settings = SettingsModel.preview()
        #expect(settings.showsKeys && settings.keyRows.count == 3)
        #expect(settings.keyRows.first?.isMine == true)
        #expect(!SettingsModel.preview(role: .viewer).showsKeys)
    }
}
