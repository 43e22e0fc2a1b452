import Foundation
import RalphAPI
import RalphMobileKit

/// Sample values for the shell's `#Preview` blocks (onboarding, servers, settings, the root view): compiled and
/// tested here, so a preview never shows something the models could not produce.
public enum AppFixtures {
    public static let laptopURL = "http://192.168.1.20:8080"
    public static let studioURL = "https://studio.example.com"

    public static let health = HealthResponse(
        status: "ok", version: RalphMobileVersion.current, timestamp: "2026-11-23T13:38:00Z", protocolVersion: RalphMobileVersion.protocolVersion,
        capabilities: ["sessions", "session_events", "global_events", "steering", "chat", "approvals", "auto_reply", "keys"], authRequired: true,
        agents: [AgentInfo(name: "claude", command: "claude", version: "2.1.330", permissionModes: ["default", "acceptEdits", "plan"], error: nil)]
    )

    /// Who you are with a key of `role` (`key-2f9c` is also in ``keys``).
    public static func whoAmI(_ role: Role) -> WhoAmI {
        WhoAmI(role: role, keyID: "key-2f9c", authRequired: true, via: "key")
    }

    /// A loopback server without keys.
    public static let trusted = WhoAmI(role: .admin, keyID: nil, authRequired: false, via: "trusted")

    public static let keys: [APIKeyInfo] = [
        APIKeyInfo(id: "key-2f9c", name: "phone", role: .admin, createdAt: "2026-11-23T12:30:00Z"),
        APIKeyInfo(id: "key-81aa", name: "ci-bot", role: .operator, createdAt: "2026-11-20T09:00:00Z"),
        APIKeyInfo(id: "key-07d1", name: nil, role: .viewer, createdAt: "2026-10-02T17:45:00Z"),
    ]

    /// Two saved servers, the first one in use.
    public static let profilesJSON = """
        {"active": "laptop", "profiles": [
          {"id": "laptop", "name": "MacBook", "url": "\(laptopURL)", "has_key": true},
          {"id": "studio", "name": "Studio", "url": "\(studioURL)", "has_key": true}
        ]}
        """

    /// Addresses and what onboarding says about them.
    public static let addressExamples: [String] = [
        "http://192.168.1.20:8080", "192.168.1.20:8080", "http://example.com:8080", "http://192.168.1.20:99999", "ftp://nas.local",
    ]
}

extension AppModel {
    /// An app connected (in appearance: nothing is requested) to the sample servers of ``AppFixtures`` as `role`.
    /// For previews.
    public static func preview(role: Role = .admin, servers: Bool = true) -> AppModel {
        let directory = NSTemporaryDirectory() + "ralph-mobile-preview-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if servers { try? Data(AppFixtures.profilesJSON.utf8).write(to: URL(fileURLWithPath: directory + "/servers.json")) }
        let model = AppModel.open(directory: directory, secrets: MemorySecretStore())
        guard servers, let profile = model.activeProfile else { return model }
        model.client = try? RalphClient(baseURL: profile.url, apiKey: "rmk_preview")
        model.health = AppFixtures.health
        model.whoAmI = AppFixtures.whoAmI(role)
        model.status = .ready
        return model
    }
}

extension SettingsModel {
    /// Settings with the sample keys loaded. For previews.
    public static func preview(role: Role = .admin) -> SettingsModel {
        let model = SettingsModel(app: .preview(role: role))
        if role == .admin {
            model.keys = AppFixtures.keys
            model.keysState = .loaded
        }
        return model
    }
}
