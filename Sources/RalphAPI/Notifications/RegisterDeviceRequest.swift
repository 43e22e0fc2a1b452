/// `POST /api/notifications/devices`: registers a device (or replaces the registration with the same target, so a
/// browser or app that registers again does not appear twice). Exactly the field of its ``channel`` is set.
public struct RegisterDeviceRequest: Codable, Hashable, Sendable {
    /// What a person calls it ("Pixel", "iPhone", "ntfy on my watch"); at most 100 characters.
    public var name: String
    public var channel: NotificationChannel
    /// The kinds it is told about; all when absent.
    public var kinds: [NotificationKind]?
    /// `full` when absent.
    public var privacy: NotificationPrivacy?
    public var quietHours: QuietHours?
    public var webPush: WebPushSubscription?
    public var apns: APNsDevice?
    public var ntfy: NtfyTopic?
    public var webhook: WebhookTarget?
    /// For `web_push` only: the endpoint of the subscription this one replaces (the browser rotated it and fired
    /// `pushsubscriptionchange`). The replaced device, which must belong to the same key, is deleted in the same
    /// transaction and its name, and its kinds, privacy and quiet hours unless given here, carry over, as do its pending
    /// deliveries. An endpoint the server does not know (already removed after a 410, or never registered) is not an
    /// error: the registration is then an ordinary one. Never stored.
    public var replacesEndpoint: String?

    public init(
        name: String, channel: NotificationChannel, kinds: [NotificationKind]? = nil, privacy: NotificationPrivacy? = nil,
        quietHours: QuietHours? = nil, webPush: WebPushSubscription? = nil, apns: APNsDevice? = nil, ntfy: NtfyTopic? = nil,
        webhook: WebhookTarget? = nil, replacesEndpoint: String? = nil
    ) {
        self.name = name
        self.channel = channel
        self.kinds = kinds
        self.privacy = privacy
        self.quietHours = quietHours
        self.webPush = webPush
        self.apns = apns
        self.ntfy = ntfy
        self.webhook = webhook
        self.replacesEndpoint = replacesEndpoint
    }

    enum CodingKeys: String, CodingKey {
        case name, channel, kinds, privacy, apns, ntfy, webhook
        case quietHours = "quiet_hours"
        case webPush = "web_push"
        case replacesEndpoint = "replaces_endpoint"
    }
}
