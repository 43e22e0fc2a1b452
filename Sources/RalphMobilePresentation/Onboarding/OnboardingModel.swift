import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// Adding a server: the address checked as it is typed, then — before anything is saved — the server's health
/// (`GET /api/health`: is something there, is it a Ralph Mobile server, does it want a key), then the key
/// (`GET /api/whoami`). Only a server that passed both is saved (with its key in the secret store) and becomes the
/// active one.
@MainActor
@Observable
public final class OnboardingModel {
    public enum Phase: Equatable, Sendable {
        case editing
        /// A check is running; the text says which.
        case checking(String)
        case failed(OnboardingFailure)
        case saved(ServerProfile)
    }

    /// The address field.
    public var address: String {
        didSet {
            guard address != oldValue else { return }
            // What another address's server said does not hold for this one.
            if !isChecking {
                health = nil
                identity = nil
            }
            resetAfterEdit()
        }
    }
    /// The API key field (optional for a trusted local server).
    public var apiKey: String {
        didSet { if apiKey != oldValue { resetAfterEdit() } }
    }
    /// The name field; empty takes the address's `host:port`.
    public var name: String {
        didSet { if name != oldValue { resetAfterEdit() } }
    }
    public private(set) var phase: Phase = .editing
    /// The health of the server at the address, once it answered.
    public private(set) var health: HealthResponse?
    /// Who the key is on that server, once it was accepted.
    public private(set) var identity: WhoAmI?

    @ObservationIgnored let app: AppModel
    /// How long each check waits for an answer.
    @ObservationIgnored public var timeout: Duration = .seconds(5)

    public init(app: AppModel, address: String = "", apiKey: String = "", name: String = "") {
        self.app = app
        self.address = address
        self.apiKey = apiKey
        self.name = name
    }

    // MARK: - Validation as typed

    /// What is wrong with the address, shown under the field as it is typed (nothing while it is empty).
    public var addressProblem: ServerAddressProblem? {
        guard !address.trimmingCharacters(in: .whitespaces).isEmpty, case .failure(let problem) = ServerAddress.parse(address) else { return nil }
        return problem
    }

    /// The server will be saved under this name.
    public var effectiveName: String {
        let typed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if !typed.isEmpty { return typed }
        if case .success(let parsed) = ServerAddress.parse(address) { return parsed.suggestedName }
        return ""
    }

    /// Whether the key field should be shown as required: the server said it wants one.
    public var keyRequired: Bool { health?.authRequired ?? false }

    public var isChecking: Bool {
        if case .checking = phase { return true }
        return false
    }

    /// What the running check is doing, for the button while it runs.
    public var progressText: String? {
        if case .checking(let text) = phase { return text }
        return nil
    }

    /// The hint under the key field.
    public var keyHint: String {
        keyRequired
            ? "This server needs an API key. Create one on its computer: ralph-mobile-server keys create --role operator --name phone"
            : "Needed when the server listens on the network (--bind-all) or has keys; leave it empty for a server on this device without keys."
    }

    /// The Connect button is enabled.
    public var canSubmit: Bool {
        !isChecking && !address.trimmingCharacters(in: .whitespaces).isEmpty && addressProblem == nil
    }

    /// The server was saved (a pushed onboarding screen closes).
    public var isSaved: Bool {
        if case .saved = phase { return true }
        return false
    }

    /// The failure shown, if any.
    public var failure: OnboardingFailure? {
        if case .failed(let failure) = phase { return failure }
        return nil
    }

    /// Replaces the address with the suggested fix of its problem.
    public func applySuggestion() {
        if let suggestion = addressProblem?.suggestion { address = suggestion }
    }

    private func resetAfterEdit() {
        guard !isChecking else { return }
        if case .saved = phase { return }
        phase = .editing
    }

    // MARK: - Checking and saving

    /// Checks the server and the key, then saves the server and makes it the active one. Returns it when saved.
    @discardableResult
    public func submit() async -> ServerProfile? {
        guard !isChecking else { return nil }
        let parsed: ServerAddress
        switch ServerAddress.parse(address) {
        case .success(let value): parsed = value
        case .failure(let problem): return fail(.invalidAddress(problem))
        }
        if let existing = app.profiles.profiles.first(where: { $0.url == parsed.url }) { return fail(.alreadySaved(name: existing.name)) }
        let profileName = effectiveName
        if app.profiles.profile(named: profileName) != nil { return fail(.duplicateName(profileName)) }
        let key = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)

        var client: RalphClient
        do {
            client = try RalphClient(baseURL: parsed.url, apiKey: key.isEmpty ? nil : key)
        } catch {
            return fail(.serverError(error.description))
        }
        client.timeout = timeout

        phase = .checking("Looking for a Ralph Mobile server at \(parsed.url)…")
        health = nil
        identity = nil
        let health: HealthResponse
        do {
            health = try await client.health()
        } catch {
            return fail(OnboardingFailure(healthError: error, url: parsed.url))
        }
        self.health = health
        if health.authRequired && key.isEmpty { return fail(.needsKey(url: parsed.url)) }

        phase = .checking(key.isEmpty ? "Asking the server who you are…" : "Checking the API key…")
        do {
            identity = try await client.whoAmI()
        } catch {
            return fail(OnboardingFailure(identityError: error, url: parsed.url))
        }

        phase = .checking("Saving \(profileName)…")
        let profile: ServerProfile
        do {
            profile = try await app.profiles.add(name: profileName, url: parsed.url, apiKey: key.isEmpty ? nil : key)
        } catch {
            return fail(OnboardingFailure(profileError: error, url: parsed.url))
        }
        phase = .saved(profile)
        await app.serverAdded(profile)
        return profile
    }

    private func fail(_ failure: OnboardingFailure) -> ServerProfile? {
        phase = .failed(failure)
        return nil
    }
}

/// Why a server was not saved, worded for a person, with the field to fix.
public enum OnboardingFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Field: Sendable { case address, apiKey, name }

    case invalidAddress(ServerAddressProblem)
    /// Nothing answers at the address.
    case serverDown(url: String, detail: String)
    case timedOut(url: String)
    /// Something answered, but not a Ralph Mobile server.
    case notRalphMobile(url: String, detail: String)
    case needsKey(url: String)
    case keyRefused(url: String)
    /// Too many wrong keys from this address: the server refuses for a while.
    case throttled(url: String, detail: String)
    case alreadySaved(name: String)
    case duplicateName(String)
    case saveFailed(String)
    case serverError(String)

    init(healthError error: RalphClientError, url: String) {
        switch error {
        case .unreachable(let why): self = .serverDown(url: url, detail: why)
        case .timedOut: self = .timedOut(url: url)
        case .server(let status, let message) where status >= 500: self = .serverError("\(url) answered HTTP \(status): \(message)")
        default: self = .notRalphMobile(url: url, detail: error.description)
        }
    }

    init(identityError error: RalphClientError, url: String) {
        switch error {
        case .unauthorized: self = .keyRefused(url: url)
        case .server(429, let message): self = .throttled(url: url, detail: message)
        case .unreachable(let why): self = .serverDown(url: url, detail: why)
        case .timedOut: self = .timedOut(url: url)
        // A server that has /api/health but no /api/whoami is an older or a different one.
        case .notFound, .decoding: self = .notRalphMobile(url: url, detail: error.description)
        default: self = .serverError(error.description)
        }
    }

    init(profileError error: ProfileError, url: String) {
        switch error {
        case .invalidURL: self = .invalidAddress(.invalidHost(url))
        case .unreachable(let why): self = .serverDown(url: url, detail: why)
        case .needsKey: self = .needsKey(url: url)
        case .keyRefused: self = .keyRefused(url: url)
        case .duplicateName(let name): self = .duplicateName(name)
        case .notFound(let why), .storage(let why): self = .saveFailed(why)
        }
    }

    public var description: String {
        switch self {
        case .invalidAddress(let problem): problem.description
        case .serverDown(let url, let detail):
            "Nothing answers at \(url) (\(detail)). Is ralph-mobile-server running? From another device, start it with --bind-all and use the computer's address on your network, not 127.0.0.1."
        case .timedOut(let url): "\(url) did not answer in time. Check that this device is on the same network as the server."
        case .notRalphMobile(let url, let detail): "\(url) answered, but it is not a Ralph Mobile server (\(detail)). Check the address and the port."
        case .needsKey: "This server needs an API key. Create one on the server's computer: ralph-mobile-server keys create --role operator --name phone"
        case .keyRefused: "The server refused this API key. Check it, or create a new one: ralph-mobile-server keys create --role operator --name phone"
        case .throttled(_, let detail): "The server refuses keys from this device for a while after too many wrong ones (\(detail)). Wait a minute and try again."
        case .alreadySaved(let name): "This server is already saved as '\(name)'. Switch to it in Servers."
        case .duplicateName(let name): "A server named '\(name)' is already saved. Choose another name."
        case .saveFailed(let why): "The server could not be saved: \(why)"
        case .serverError(let why): "The server had a problem: \(why)"
        }
    }

    /// The field the person should change.
    public var field: Field? {
        switch self {
        case .invalidAddress, .serverDown, .timedOut, .notRalphMobile, .alreadySaved: .address
        case .needsKey, .keyRefused, .throttled: .apiKey
        case .duplicateName: .name
        case .saveFailed, .serverError: nil
        }
    }
}
