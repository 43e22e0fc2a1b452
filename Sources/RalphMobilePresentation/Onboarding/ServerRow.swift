import RalphMobileKit

/// One saved server as the Servers screen lists it.
public struct ServerRow: Identifiable, Equatable, Sendable {
    public let id: String
    public let name: String
    public let url: String
    public let isActive: Bool
    /// "Encrypted (https)" or "Local network (http)".
    public let transport: String
    /// "API key saved" or "No key (trusted local server)".
    public let keyState: String

    public init(_ profile: ServerProfile, isActive: Bool) {
        id = profile.id
        name = profile.name
        url = profile.url
        self.isActive = isActive
        transport = profile.url.lowercased().hasPrefix("https://") ? "Encrypted (https)" : "Local network (http)"
        keyState = profile.hasKey ? "API key saved" : "No key (trusted local server)"
    }

    /// The line under the address: transport and key.
    public var detail: String { "\(transport) · \(keyState)" }

    /// What VoiceOver reads for the row.
    public var accessibilityLabel: String {
        "\(name), \(url), \(transport), \(keyState)" + (isActive ? ", in use" : "")
    }

    /// The question asked before removing it.
    public var removeConfirmation: String {
        "Remove \(name)? " + (keyState == "API key saved" ? "Its API key is deleted from this device. " : "")
            + "You can add it again later." + (isActive ? " The app switches to another saved server." : "")
    }

    /// The saved servers, in the order they were added, the active one marked.
    @MainActor
    public static func rows(of profiles: ServerProfiles) -> [ServerRow] {
        let active = profiles.active?.id
        return profiles.profiles.map { ServerRow($0, isActive: $0.id == active) }
    }
}
