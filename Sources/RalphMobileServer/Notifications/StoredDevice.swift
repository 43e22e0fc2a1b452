import Foundation
import RalphAPI

/// A registered device as the server keeps it: its registration with its secrets, and who registered it.
struct StoredDevice: Sendable, Hashable {
    var id: String
    var keyID: String?
    var registration: RegisterDeviceRequest
    var createdAt: String
    var lastDeliveredAt: String?
    var lastError: String?

    var channel: NotificationChannel { registration.channel }
    var kinds: Set<NotificationKind> { Set(registration.kinds ?? NotificationKind.allCases) }
    var privacy: NotificationPrivacy { registration.privacy ?? .full }

    /// The channel's identity of the device: registering the same one again replaces the registration.
    var target: String { Self.target(of: registration) }

    static func target(of registration: RegisterDeviceRequest) -> String {
        switch registration.channel {
        case .webPush: registration.webPush?.endpoint ?? ""
        case .apns: registration.apns.map { "\($0.environment.rawValue):\($0.deviceToken.lowercased())" } ?? ""
        case .ntfy: registration.ntfy?.url ?? ""
        case .webhook: registration.webhook?.url ?? ""
        }
    }

    /// Where it is delivered, without secrets or the capability part of a push endpoint.
    var displayTarget: String {
        switch registration.channel {
        case .webPush: URL(string: target)?.host ?? "push service"
        case .apns: "APNs \(registration.apns?.environment.rawValue ?? "")"
        case .ntfy, .webhook: target
        }
    }

    /// The API view.
    func view(includeSecret: Bool = false) -> NotificationDevice {
        NotificationDevice(
            id: id, name: registration.name, channel: channel, kinds: NotificationKind.allCases.filter(kinds.contains), privacy: privacy,
            quietHours: registration.quietHours, target: displayTarget, keyId: keyID, createdAt: createdAt, lastDeliveredAt: lastDeliveredAt,
            lastError: lastError, webhookSecret: includeSecret ? registration.webhook?.secret : nil)
    }
}
