import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The Settings screen: the server (address, version, protocol, access, the agent CLI), who you are and what your role
/// may do, the theme, log out, and for admins the server's API keys (list, create — the secret shown once —, revoke).
@MainActor
@Observable
public final class SettingsModel {
    public enum KeysState: Equatable, Sendable {
        case idle, loading, loaded
        case failed(String)
    }

    @ObservationIgnored public let app: AppModel

    /// Newest first.
    public internal(set) var keys: [APIKeyInfo] = []
    public internal(set) var keysState: KeysState = .idle
    /// The key just created, with its secret: shown once, until ``dismissCreatedKey()``.
    public private(set) var createdKey: CreatedAPIKey?
    /// Whether the key just created was made on a server that trusted this device without a key (which now asks for
    /// one): the screen offers ``useCreatedKeyHere()``.
    public private(set) var createdOnTrustedServer = false
    /// The new-key form.
    public var newKeyName = ""
    public var newKeyRole: Role = .operator
    public private(set) var isWorking = false
    /// Why the last action failed.
    public private(set) var lastError: String?
    /// The clock for "created 3 min ago" (tests fix it).
    @ObservationIgnored public var now: () -> Date = { Date() }
    /// The time zone dates are shown in.
    @ObservationIgnored public var timeZone = TimeZone.current

    public init(app: AppModel) {
        self.app = app
    }

    // MARK: - Server

    /// Name, address, version, protocol, access and the agent CLI, as label/value rows.
    public var serverRows: [SettingsRow] {
        var rows: [SettingsRow] = []
        if let profile = app.activeProfile {
            rows.append(SettingsRow("Server", profile.name))
            rows.append(SettingsRow("Address", profile.url, monospaced: true))
        }
        let health = app.health
        rows.append(SettingsRow("Version", health?.version ?? "—", monospaced: true))
        rows.append(SettingsRow("Protocol", health.map { String($0.protocolVersion) } ?? "—", monospaced: true))
        if let required = health?.authRequired ?? app.whoAmI?.authRequired {
            rows.append(
                SettingsRow(
                    "Access",
                    required
                        ? "Every request needs an API key."
                        : "No key needed: the server listens on this computer only and has no keys, so local callers are trusted as admin."
                )
            )
        }
        rows += agentRows
        return rows
    }

    /// What the server says it can do (`/api/health` capabilities), sorted.
    public var serverCapabilities: [String] { (app.health?.capabilities ?? []).sorted() }

    /// The title of the capabilities list: `Capabilities (8)`.
    public var capabilitiesTitle: String { "Capabilities (\(serverCapabilities.count))" }

    /// The protocol note of ``AppModel/compatibilityNote``.
    public var compatibilityNote: String? { app.compatibilityNote }

    // MARK: - You

    public var role: Role? { app.whoAmI?.role }

    /// Role, key and how you are signed in.
    public var youRows: [SettingsRow] {
        guard let me = app.whoAmI else { return [SettingsRow("Role", "—")] }
        let key: String =
            switch me.keyID {
            case "cli"?: "cli (the server's --api-key)"
            case let id?: id
            case nil: me.via == "trusted" ? "none" : "—"
            }
        let how: String =
            switch me.via {
            case "key": "An API key sent with each request, kept in this device's Keychain."
            case "trusted": "Trusted local caller: the server has no keys and listens on this computer only."
            case "cookie": "A web login."
            default: me.via
            }
        return [SettingsRow("Role", me.role.rawValue), SettingsRow("Key", key, monospaced: true), SettingsRow("How", how)]
    }

    /// What the role may do, in a sentence.
    public var roleDescription: String {
        switch app.whoAmI?.role {
        case .admin?: "Admin: everything — start and stop runs, manage keys, import configs, plus what operators do."
        case .operator?: "Operator: steers — pause and resume runs, send guidance and events, chat with Claude Code, answer approvals, auto-reply."
        case .viewer?: "Viewer: reads only — sessions, events, chats, the library. No controls."
        case nil: "Not known yet: the server has not said who you are."
        }
    }

    /// Log out is offered when a key is saved for the server — also when the server refuses it now (a server that
    /// trusts this device without a key has nothing to log out of: remove it from Servers instead).
    public var canLogOut: Bool { app.activeProfile?.hasKey == true }

    public var logOutConfirmation: String {
        "Log out of \(app.activeProfile?.name ?? "this server")? Its API key is deleted from this device; to come back, add the server again with a key."
    }

    /// Forgets the key; returns the server's address for onboarding.
    @discardableResult
    public func logOut() async -> String? {
        do {
            lastError = nil
            return try await app.logOut()
        } catch {
            lastError = error.description
            return nil
        }
    }

    // MARK: - Theme

    public var theme: AppTheme {
        get { app.theme }
        set { app.theme = newValue }
    }

    // MARK: - Keys (admins)

    /// The keys section is shown to admins only.
    public var showsKeys: Bool { app.capabilities.canManageKeys }

    /// The keys as rows, newest first, yours marked.
    public var keyRows: [KeyRow] {
        keys.map { KeyRow($0, isMine: $0.id == app.whoAmI?.keyID, now: now(), timeZone: timeZone) }
    }

    /// Why the keys list is empty, when it is.
    public var emptyKeysMessage: String? {
        guard keysState == .loaded, keys.isEmpty else { return nil }
        return app.whoAmI?.via == "trusted"
            ? "No keys yet: the server trusts this computer's callers. Create a key to use Ralph Mobile from a phone (and start the server with --bind-all)."
            : "No keys in the keys file. The key you use comes from the server's --api-key option, which is not listed here."
    }

    public func loadKeys() async {
        guard showsKeys, let client = app.client else { return }
        keysState = .loading
        do {
            keys = try await client.keys().sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
            keysState = .loaded
        } catch {
            keysState = .failed("Could not load the keys: \(error.description)")
        }
    }

    /// The roles a new key can have, least first, as the picker shows them.
    public static let keyRoles: [(role: Role, label: String)] = [
        (.viewer, "Viewer — read only"), (.operator, "Operator — steer, chat, approve"), (.admin, "Admin — everything"),
    ]

    /// What is wrong with the new key's name (nothing when empty: names are optional).
    public var newKeyNameProblem: String? {
        newKeyName.trimmingCharacters(in: .whitespacesAndNewlines).count > 200 ? "The name is longer than 200 characters." : nil
    }

    /// Shown above the new-key form on a server that trusts this device without a key.
    public var createKeyWarning: String? {
        guard app.whoAmI?.via == "trusted" else { return nil }
        return
            "This server trusts local callers only while it has no keys. Once this key exists, every request needs a key — this device too: create an admin key and use it here to keep full access."
    }

    /// Clears the new-key form: no name, and the role offered first — operator, or admin on a server that trusts
    /// this device (its first key is the one this device will need).
    public func startNewKey() {
        newKeyName = ""
        newKeyRole = app.whoAmI?.via == "trusted" ? .admin : .operator
        lastError = nil
    }

    public var canCreateKey: Bool { showsKeys && !isWorking && newKeyNameProblem == nil }

    /// Creates a key with the form's role and name; its secret is in ``createdKey`` until dismissed.
    @discardableResult
    public func createKey() async -> Bool {
        guard canCreateKey, let client = app.client else { return false }
        let name = newKeyName.trimmingCharacters(in: .whitespacesAndNewlines)
        isWorking = true
        defer { isWorking = false }
        let trusted = app.whoAmI?.via == "trusted"
        do {
            let created = try await client.createKey(role: newKeyRole, name: name.isEmpty ? nil : name)
            createdKey = created
            createdOnTrustedServer = trusted
            newKeyName = ""
            lastError = nil
            if !trusted { await loadKeys() }
            return true
        } catch {
            lastError = "Could not create the key: \(error.description)"
            return false
        }
    }

    /// The created key's secret is gone from the screen for good.
    public func dismissCreatedKey() {
        createdKey = nil
        createdOnTrustedServer = false
    }

    /// Uses the key just created for this server from now on (saved in the Keychain after the server accepted it).
    @discardableResult
    public func useCreatedKeyHere() async -> Bool {
        guard let secret = createdKey?.secret else { return false }
        isWorking = true
        defer { isWorking = false }
        do {
            try await app.replaceKey(with: secret)
            dismissCreatedKey()
            lastError = nil
            await loadKeys()
            return true
        } catch {
            lastError = "Could not use the new key: \(error.description)"
            return false
        }
    }

    public func revokeConfirmation(for row: KeyRow) -> String {
        "Revoke “\(row.name)” (\(row.id), \(row.role.rawValue))? Every device using it loses access at once. This cannot be undone."
            + (row.isMine ? " It is the key this device uses: you will be logged out." : "")
    }

    /// Revokes a key; revoking the key this device uses logs out.
    @discardableResult
    public func revoke(_ id: String) async -> Bool {
        guard let client = app.client else { return false }
        let mine = id == app.whoAmI?.keyID
        isWorking = true
        defer { isWorking = false }
        do {
            try await client.revokeKey(id)
            lastError = nil
        } catch {
            lastError = "Could not revoke the key: \(error.description)"
            return false
        }
        if mine {
            await logOut()
        } else {
            await loadKeys()
        }
        return true
    }
}

/// A label and its value.
public struct SettingsRow: Identifiable, Equatable, Sendable {
    public let label: String
    public let value: String
    /// Addresses, versions and ids read better in a monospaced font.
    public let monospaced: Bool
    public var id: String { label + "\u{0}" + value }

    public init(_ label: String, _ value: String, monospaced: Bool = false) {
        self.label = label
        self.value = value
        self.monospaced = monospaced
    }
}

/// An API key as the keys list shows it.
public struct KeyRow: Identifiable, Equatable, Sendable {
    public let id: String
    /// The key's name, or "unnamed".
    public let name: String
    public let role: Role
    /// `2026-11-23 13:38` in the device's time zone.
    public let created: String
    /// `3 min ago`.
    public let createdRelative: String
    /// The key this device uses.
    public let isMine: Bool

    public init(_ key: APIKeyInfo, isMine: Bool, now: Date, timeZone: TimeZone) {
        id = key.id
        name = key.name.flatMap { $0.isEmpty ? nil : $0 } ?? "unnamed"
        role = key.role
        self.isMine = isMine
        if let date = Timestamp.parse(key.createdAt) {
            created = KeyRow.format(date, timeZone: timeZone)
            createdRelative = KeyRow.relative(date, now: now)
        } else {
            created = key.createdAt
            createdRelative = ""
        }
    }

    /// `created 2026-11-23 13:38 (3 min ago)`.
    public var createdLine: String {
        createdRelative.isEmpty ? "created \(created)" : "created \(created) (\(createdRelative))"
    }

    public var accessibilityLabel: String {
        "\(name), \(role.rawValue) key \(id), created \(created)" + (isMine ? ", the key this device uses" : "")
    }

    static func format(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
    }

    /// `just now`, `5 min ago`, `3 h ago`, `2 days ago`; a date in the future (clocks differ) is `just now`.
    static func relative(_ date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3600) h ago"
        case ..<172_800: return "1 day ago"
        default: return "\(seconds / 86_400) days ago"
        }
    }
}
