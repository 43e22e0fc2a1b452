/// A registered device, as the API shows it: secrets (keys, tokens, webhook secret) are never returned, except the
/// webhook secret once, in the response to the registration that generated it.
public struct NotificationDevice: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    public var channel: NotificationChannel
    public var kinds: [NotificationKind]
    public var privacy: NotificationPrivacy
    public var quietHours: QuietHours?
    /// Where it is delivered, without secrets: the push service's host, the ntfy topic URL, the webhook URL.
    public var target: String
    /// The API key that registered it (its devices are the ones told); nil on a server without keys.
    public var keyId: String?
    public var createdAt: String
    public var lastDeliveredAt: String?
    /// The last delivery failure, in words, until a delivery succeeds.
    public var lastError: String?
    /// Only in the response to a webhook registration that let the server generate the secret.
    public var webhookSecret: String?

    public init(
        id: String, name: String, channel: NotificationChannel, kinds: [NotificationKind], privacy: NotificationPrivacy,
        quietHours: QuietHours?, target: String, keyId: String?, createdAt: String, lastDeliveredAt: String?, lastError: String?,
        webhookSecret: String? = nil
    ) {
        self.id = id
        self.name = name
        self.channel = channel
        self.kinds = kinds
        self.privacy = privacy
        self.quietHours = quietHours
        self.target = target
        self.keyId = keyId
        self.createdAt = createdAt
        self.lastDeliveredAt = lastDeliveredAt
        self.lastError = lastError
        self.webhookSecret = webhookSecret
    }

    enum CodingKeys: String, CodingKey {
        case id, name, channel, kinds, privacy, target
        case quietHours = "quiet_hours"
        case keyId = "key_id"
        case createdAt = "created_at"
        case lastDeliveredAt = "last_delivered_at"
        case lastError = "last_error"
        case webhookSecret = "webhook_secret"
    }
}
