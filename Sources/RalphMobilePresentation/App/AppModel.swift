import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The app's state above every screen: the saved servers, the active one's client, who we are on it (and so what we
/// may do), its health and version, the theme, and the live feeds of the screens shown.
///
/// - ``activate(_:)`` makes a saved server the active one: the feeds of the previous one are closed first, then the
///   server's health and `whoami` are read (``status`` goes `connecting → ready`, or says what went wrong).
/// - A reply that arrives after the active server changed is dropped.
/// - ``capabilities`` are a viewer's until `whoami` answers: a control is never shown on a guess.
/// - ``logOut()`` forgets the active server's key (and the server with it: a saved server without its key cannot
///   be used), closes its feeds and returns its address, so onboarding can offer it again.
/// - ``enterBackground()`` suspends every live feed, ``enterForeground()`` resumes them and re-reads who we are
///   (a role may have changed meanwhile).
@MainActor
@Observable
public final class AppModel {
    public let profiles: ServerProfiles
    @ObservationIgnored public let feeds = LiveFeeds()

    /// The active server's client; nil without a server.
    public internal(set) var client: RalphClient? {
        didSet { connectionID += 1 }
    }
    /// Changes whenever ``client`` does (another server, another key): screens rebuild their models when it changes
    /// (`.task(id: app.connectionID)`, `.id(app.connectionID)`).
    public private(set) var connectionID = 0
    /// Who we are on the active server, once it answered.
    public internal(set) var whoAmI: WhoAmI? {
        didSet { capabilities = Capabilities(role: whoAmI?.role ?? .viewer) }
    }
    /// What the role of ``whoAmI`` may do; a viewer's until it is known.
    public private(set) var capabilities = Capabilities(role: .viewer)
    /// The active server's `/api/health`.
    public internal(set) var health: HealthResponse?
    public internal(set) var status: ServerStatus = .noServer
    /// Something the person should know that is not an error of the server (a servers file that could not be read).
    public internal(set) var notice: String?
    /// The theme, remembered across launches.
    public var theme: AppTheme {
        didSet {
            guard theme != oldValue else { return }
            preferences.theme = theme
            do {
                try preferences.save(to: preferencesFile)
            } catch {
                notice = "The theme could not be saved: \(error)"
            }
        }
    }

    @ObservationIgnored private var preferences: AppPreferences
    @ObservationIgnored let preferencesFile: String
    /// Bumped whenever the active server changes: answers for an older one are dropped.
    @ObservationIgnored private var generation = 0

    /// The app's state kept in `directory` (`servers.json`, `preferences.json`), keys in `secrets`.
    public init(directory: String, secrets: any SecretStore) throws(ProfileError) {
        profiles = try ServerProfiles(file: directory + "/servers.json", secrets: secrets)
        preferencesFile = directory + "/preferences.json"
        preferences = AppPreferences.load(from: preferencesFile)
        theme = preferences.theme
        status = profiles.profiles.isEmpty ? .noServer : .connecting
    }

    /// Opens the state in `directory`. A servers file that cannot be read is moved aside (never deleted: it may be
    /// repaired by hand) and the app starts without servers, saying so in ``notice``.
    public static func open(directory: String, secrets: any SecretStore) -> AppModel {
        do {
            return try AppModel(directory: directory, secrets: secrets)
        } catch {
            let file = directory + "/servers.json"
            let aside = file + ".unreadable-\(Int(Date().timeIntervalSince1970))"
            let moved = (try? FileManager.default.moveItem(atPath: file, toPath: aside)) != nil
            // Still unreadable (it could not be moved): a fresh file in a directory of its own, which cannot fail.
            let fresh = NSTemporaryDirectory() + "ralph-mobile-\(UUID().uuidString)"
            guard let model = (try? AppModel(directory: directory, secrets: secrets)) ?? (try? AppModel(directory: fresh, secrets: secrets)) else {
                preconditionFailure("a directory without a servers file cannot fail to open")
            }
            model.notice =
                moved
                ? "The saved servers could not be read (\(error)); the file was kept as \(aside). Add your server again."
                : "The saved servers could not be read (\(error)). Add your server again."
            return model
        }
    }

    // MARK: - Servers

    /// The server in use, if any.
    public var activeProfile: ServerProfile? { profiles.active }

    /// True until a server is saved.
    public var needsOnboarding: Bool { profiles.profiles.isEmpty }

    /// Connects to the saved active server, if there is one (at launch).
    public func start() async {
        guard let profile = activeProfile else {
            status = .noServer
            return
        }
        await activate(profile)
    }

    /// Makes `profile` the active server: closes the feeds of the previous one, then reads health and identity.
    public func activate(_ profile: ServerProfile) async {
        feeds.closeAll()
        generation += 1
        whoAmI = nil
        health = nil
        if profiles.activeID != profile.id {
            do {
                try profiles.use(profile.id)
            } catch {
                status = .failed(error.description)
                client = nil
                return
            }
        }
        do {
            client = try profiles.client(for: profile)
        } catch {
            client = nil
            status = .failed(error.description)
            return
        }
        status = .connecting
        await refresh()
    }

    /// Switches to the saved server with this id.
    public func switchServer(to id: String) async throws(ProfileError) {
        guard let profile = profiles.profiles.first(where: { $0.id == id }) else { throw .notFound(id) }
        await activate(profile)
    }

    /// Removes a saved server and its key; removing the active one switches to the next (or back to onboarding).
    public func removeServer(_ id: String) async throws(ProfileError) {
        let wasActive = activeProfile?.id == id
        if wasActive { disconnect() }
        do {
            try profiles.remove(id)
        } catch {
            // Kept (its key could not be forgotten): connected again as before, and the error said.
            if wasActive { await start() }
            throw error
        }
        if wasActive { await start() }
    }

    /// Forgets the active server's key (and the server: it cannot be used without it) and closes its feeds.
    /// Returns its address for onboarding to offer again.
    @discardableResult
    public func logOut() async throws(ProfileError) -> String? {
        guard let profile = activeProfile else { return nil }
        disconnect()
        do {
            try profiles.remove(profile.id)
        } catch {
            await start()
            throw error
        }
        await start()
        return profile.url
    }

    /// Saves the active server again with another key (checked by the server first) and uses it: after creating the
    /// first key of a server that trusted this device, which now asks every caller for a key. If the new key is
    /// refused the server is saved back as it was.
    public func replaceKey(with key: String) async throws(ProfileError) {
        guard let profile = activeProfile else { throw .notFound("no active server") }
        let oldKey = (try? profiles.client(for: profile))?.apiKey
        disconnect()
        do {
            try profiles.remove(profile.id)
        } catch {
            await start()
            throw error
        }
        do {
            let replaced = try await profiles.add(name: profile.name, url: profile.url, apiKey: key)
            await activate(replaced)
        } catch {
            if let restored = try? await profiles.add(name: profile.name, url: profile.url, apiKey: oldKey) {
                await activate(restored)
            } else {
                await start()
                notice = "\(profile.name) could not be saved again (\(error)); add it again with a key."
            }
            throw error
        }
    }

    /// A server onboarding just saved becomes the active one.
    public func serverAdded(_ profile: ServerProfile) async {
        await activate(profile)
    }

    private func disconnect() {
        feeds.closeAll()
        generation += 1
        client = nil
        whoAmI = nil
        health = nil
        status = .noServer
    }

    // MARK: - Health and identity

    /// Re-reads the active server's health and who we are. A failure sets ``status``; the identity known before stays
    /// until the server says otherwise (a wrong key clears it).
    public func refresh() async {
        guard let client else { return }
        let asked = generation
        do {
            let health = try await client.health()
            guard asked == generation else { return }
            self.health = health
            let identity = try await client.whoAmI()
            guard asked == generation else { return }
            whoAmI = identity
            status = .ready
        } catch {
            guard asked == generation else { return }
            if error == .unauthorized { whoAmI = nil }
            status = ServerStatus(error)
        }
    }

    /// The server speaks a newer protocol than this app: some screens may not work until the app is updated.
    public var compatibilityNote: String? {
        guard let health, health.protocolVersion > RalphMobileVersion.protocolVersion else { return nil }
        return "This server speaks protocol \(health.protocolVersion); this app knows protocol \(RalphMobileVersion.protocolVersion). Update the app if something does not work."
    }

    // MARK: - Scene phase

    /// The app went to the background: every live feed closes its connection.
    public func enterBackground() {
        feeds.enterBackground()
    }

    /// The app is back: the feeds reopen from where they stopped, and who we are is read again.
    public func enterForeground() async {
        await feeds.enterForeground()
        await refresh()
    }
}
