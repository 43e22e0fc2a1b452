/// `GET /api/notifications`: what this server can deliver, and what a client needs to subscribe.
public struct NotificationSettings: Codable, Hashable, Sendable {
    /// The VAPID public key a browser passes as `applicationServerKey` (base64url).
    public var vapidPublicKey: String
    /// Each channel, and when it cannot deliver, why (`apns` without credentials says so here).
    public var channels: [ChannelState]
    /// A live run silent for this long is reported (`run_silent`).
    public var silenceSeconds: Int
    /// A burst of notifications of one kind within this window is folded into one message.
    public var coalesceSeconds: Int

    public struct ChannelState: Codable, Hashable, Sendable {
        public var channel: NotificationChannel
        public var available: Bool
        public var reason: String?

        public init(channel: NotificationChannel, available: Bool, reason: String? = nil) {
            self.channel = channel
            self.available = available
            self.reason = reason
        }
    }

    public init(vapidPublicKey: String, channels: [ChannelState], silenceSeconds: Int, coalesceSeconds: Int) {
        self.vapidPublicKey = vapidPublicKey
        self.channels = channels
        self.silenceSeconds = silenceSeconds
        self.coalesceSeconds = coalesceSeconds
    }

    enum CodingKeys: String, CodingKey {
        case channels
        case vapidPublicKey = "vapid_public_key"
        case silenceSeconds = "silence_seconds"
        case coalesceSeconds = "coalesce_seconds"
    }
}
