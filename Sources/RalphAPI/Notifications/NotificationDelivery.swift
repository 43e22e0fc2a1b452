/// One attempt to deliver a notification to a device: `GET /api/notifications/deliveries` (admin) lists them, newest
/// first.
public struct NotificationDelivery: Codable, Hashable, Sendable {
    public var id: Int
    /// The delivery's id (the ``NotificationMessage/id`` the device got).
    public var messageId: String
    public var deviceId: String
    public var channel: NotificationChannel
    public var kind: NotificationKind
    /// 1 for the first try.
    public var attempt: Int
    /// `delivered`, `retrying`, `failed` (given up), `expired` (the subscription is gone; the device was removed).
    public var outcome: String
    /// The receiver's HTTP status, when it answered.
    public var status: Int?
    public var detail: String?
    public var at: String

    public init(
        id: Int, messageId: String, deviceId: String, channel: NotificationChannel, kind: NotificationKind, attempt: Int, outcome: String,
        status: Int?, detail: String?, at: String
    ) {
        self.id = id
        self.messageId = messageId
        self.deviceId = deviceId
        self.channel = channel
        self.kind = kind
        self.attempt = attempt
        self.outcome = outcome
        self.status = status
        self.detail = detail
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case id, channel, kind, attempt, outcome, status, detail, at
        case messageId = "message_id"
        case deviceId = "device_id"
    }
}

/// `GET /api/notifications/deliveries`.
public struct NotificationDeliveryList: Codable, Hashable, Sendable {
    public var deliveries: [NotificationDelivery]

    public init(deliveries: [NotificationDelivery]) {
        self.deliveries = deliveries
    }
}
