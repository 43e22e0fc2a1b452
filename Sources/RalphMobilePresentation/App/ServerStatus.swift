import RalphMobileKit

/// Where the app stands with its active server.
public enum ServerStatus: Equatable, Sendable {
    /// No server saved: onboarding.
    case noServer
    /// Asking the server who we are.
    case connecting
    /// Health and identity known; the screens work.
    case ready
    /// The server refused the saved key (revoked, or the server's keys changed).
    case keyRefused
    /// Nothing answered (the server is down, or the phone is on another network).
    case unreachable(String)
    /// Anything else (an unexpected answer, a server error).
    case failed(String)

    /// The status a failed health or identity request leads to.
    public init(_ error: RalphClientError) {
        switch error {
        case .unauthorized: self = .keyRefused
        case .unreachable, .timedOut: self = .unreachable(error.description)
        default: self = .failed(error.description)
        }
    }

    /// A short title for a banner; nil when there is nothing to say.
    public var title: String? {
        switch self {
        case .noServer: "No server"
        case .connecting: "Connecting…"
        case .ready: nil
        case .keyRefused: "Key refused"
        case .unreachable: "Server unreachable"
        case .failed: "Server error"
        }
    }

    /// What to tell the person, and what they can do.
    public var message: String? {
        switch self {
        case .noServer: "Add the address of your ralph-mobile-server."
        case .connecting, .ready: nil
        case .keyRefused: "The server no longer accepts this device's key (it was revoked or replaced). Log out and add the server again with a new key."
        case .unreachable(let why): "\(why). Is ralph-mobile-server running, and is this device on the same network? Pull to retry."
        case .failed(let why): why
        }
    }

    /// Whether the screens can show the server's data.
    public var isReady: Bool { self == .ready }
}
