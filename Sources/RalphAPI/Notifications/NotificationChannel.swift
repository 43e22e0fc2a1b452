/// How a device is reached.
public enum NotificationChannel: String, Codable, Hashable, Sendable, CaseIterable {
    /// Web Push (RFC 8030) to a browser's push service: the web dashboard installed on a phone.
    case webPush = "web_push"
    /// Apple Push Notification service: the iOS app.
    case apns
    /// An ntfy topic (ntfy.sh or a self-hosted server).
    case ntfy
    /// A JSON POST to any URL, signed with HMAC-SHA256.
    case webhook
}
