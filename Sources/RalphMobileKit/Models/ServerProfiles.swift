import Foundation
import Observation
import RalphAPI

/// A server the user added.
public struct ServerProfile: Codable, Sendable, Equatable, Identifiable {
    /// A lowercase UUID made when the server was added; also the account of its key in the ``SecretStore``.
    public var id: String
    /// The name the user gave, or `host:port` of the URL; unique among the profiles.
    public var name: String
    /// Normalised base URL.
    public var url: String
    /// Whether a key is kept for it in the secret store.
    public var hasKey: Bool

    enum CodingKeys: String, CodingKey {
        case id, name, url
        case hasKey = "has_key"
    }
}

/// Why a ``ServerProfiles`` call failed.
public enum ProfileError: Error, Equatable, CustomStringConvertible {
    /// The text is not an http(s) server URL.
    case invalidURL(String)
    /// The server did not answer, or its check failed for a reason other than the key (the URL, and the error if any).
    case unreachable(String)
    /// The server requires a key and none was given.
    case needsKey(String)
    /// The server refused the key given.
    case keyRefused(String)
    /// A profile of this name exists already.
    case duplicateName(String)
    /// No profile has this name or id.
    case notFound(String)
    /// The profiles file or the secret store could not be read or written; the text says which and why.
    case storage(String)

    /// A sentence for a person, saying what to do where it can.
    public var description: String {
        switch self {
        case .invalidURL(let url): "'\(url)' is not a server URL (use http://host:port)"
        case .unreachable(let url): "cannot reach \(url) (is ralph-mobile-server running there?)"
        case .needsKey(let url): "\(url) requires an API key (--api-key); create one with `ralph-mobile-server keys create`"
        case .keyRefused(let url): "\(url) refused the API key"
        case .duplicateName(let name): "a server named '\(name)' already exists"
        case .notFound(let name): "no server named '\(name)'"
        case .storage(let why): why
        }
    }
}

/// The servers a client knows, which one is in use, and their keys (kept in a ``SecretStore``, never in the profiles
/// file). A server is saved only after a health check: it must answer, and accept the key if it requires one.
@MainActor
@Observable
public final class ServerProfiles {
    /// Every saved server, in the order added.
    public private(set) var profiles: [ServerProfile] = []
    /// The id of the server used by default, as saved; see ``active``.
    public private(set) var activeID: String?

    @ObservationIgnored let file: String
    @ObservationIgnored let secrets: any SecretStore

    struct Stored: Codable {
        var profiles: [ServerProfile]
        var active: String?
    }

    /// Loads the profiles kept in `file`.
    public init(file: String, secrets: any SecretStore) throws(ProfileError) {
        self.file = file
        self.secrets = secrets
        guard FileManager.default.fileExists(atPath: file) else { return }
        guard let data = FileManager.default.contents(atPath: file), let stored = try? WireJSON.decode(Stored.self, from: data) else {
            throw .storage("\(file) is not a profiles file")
        }
        profiles = stored.profiles
        activeID = stored.active
    }

    /// The server in use: the one ``activeID`` names, else the first; nil when there is none.
    public var active: ServerProfile? { profiles.first { $0.id == activeID } ?? profiles.first }

    /// The profile named `name` (or with that id).
    public func profile(named name: String) -> ServerProfile? {
        profiles.first { $0.name == name || $0.id == name }
    }

    /// Checks the server and saves it; the first server added becomes the active one.
    public func add(name: String?, url: String, apiKey: String?) async throws(ProfileError) -> ServerProfile {
        let client: RalphClient
        do {
            client = try RalphClient(baseURL: url, apiKey: apiKey)
        } catch {
            throw .invalidURL(url)
        }
        var checking = client
        checking.timeout = .seconds(3)
        let profileName = (name?.isEmpty == false ? name! : URLComponents(string: client.baseURL).map { "\($0.host ?? "server")\($0.port.map { ":\($0)" } ?? "")" } ?? client.baseURL)
        guard profile(named: profileName) == nil else { throw .duplicateName(profileName) }
        guard await checking.isReachable() else { throw .unreachable(client.baseURL) }
        do {
            let health = try await checking.health()
            if health.authRequired {
                guard client.apiKey != nil else { throw ProfileError.needsKey(client.baseURL) }
                _ = try await checking.sessions()
            }
        } catch let error as ProfileError {
            throw error
        } catch RalphClientError.unauthorized {
            throw .keyRefused(client.baseURL)
        } catch {
            throw .unreachable("\(client.baseURL): \(error)")
        }
        let profile = ServerProfile(id: UUID().uuidString.lowercased(), name: profileName, url: client.baseURL, hasKey: client.apiKey != nil)
        if let key = client.apiKey {
            do {
                try secrets.setSecret(key, for: profile.id)
            } catch {
                throw .storage("cannot store the API key: \(error)")
            }
        }
        profiles.append(profile)
        if activeID == nil { activeID = profile.id }
        try save()
        return profile
    }

    /// Makes `name` the server used by default.
    public func use(_ name: String) throws(ProfileError) {
        guard let profile = profile(named: name) else { throw .notFound(name) }
        activeID = profile.id
        try save()
    }

    /// Removes the profile named `name` (or with that id) and forgets its key; if it was active, the first remaining one
    /// becomes active. An unknown name is ``ProfileError/notFound(_:)``; a key the secret store cannot forget is
    /// ``ProfileError/storage(_:)`` and the profile is kept (a profile gone while its key stays stored would hide a
    /// key the person meant to delete).
    public func remove(_ name: String) throws(ProfileError) {
        guard let profile = profile(named: name) else { throw .notFound(name) }
        do {
            try secrets.removeSecret(for: profile.id)
        } catch {
            throw .storage("cannot forget the API key of '\(profile.name)', so the profile is kept: \(error)")
        }
        profiles.removeAll { $0.id == profile.id }
        if activeID == profile.id { activeID = profiles.first?.id }
        try save()
    }

    /// A client for a profile, with its key.
    public func client(for profile: ServerProfile) throws(ProfileError) -> RalphClient {
        let key: String?
        do {
            key = profile.hasKey ? try secrets.secret(for: profile.id) : nil
        } catch {
            throw .storage("cannot read the API key: \(error)")
        }
        do {
            return try RalphClient(baseURL: profile.url, apiKey: key)
        } catch {
            throw .invalidURL(profile.url)
        }
    }

    func save() throws(ProfileError) {
        do {
            let directory = (file as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try WireJSON.encodePretty(Stored(profiles: profiles, active: activeID)).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw .storage("cannot save \(file): \(error)")
        }
    }
}
