/// One `human.guidance` line of a run and whether ralph acknowledged it with `human.guidance.ack` (ralph ≥ 2.10).
///
/// ralph refuses `LOOP_COMPLETE` while guidance is unacknowledged, so a pending item also says the loop cannot end
/// yet. An ack acknowledges every guidance line written before it that was still pending.
public struct GuidanceItem: Codable, Hashable, Sendable {
    /// The guidance as sent.
    public var text: String
    /// `ts` of the guidance line (normalised), when it has one.
    public var sentAt: String?
    /// The guidance line's event id.
    public var eventId: Int
    /// `pending` or `acknowledged`.
    public var state: GuidanceState
    /// The ack's payload: what ralph says it will do.
    public var ack: String?
    public var ackedAt: String?
    /// The ack line's event id.
    public var ackEventId: Int?

    public init(text: String, sentAt: String?, eventId: Int, state: GuidanceState, ack: String? = nil, ackedAt: String? = nil, ackEventId: Int? = nil) {
        self.text = text
        self.sentAt = sentAt
        self.eventId = eventId
        self.state = state
        self.ack = ack
        self.ackedAt = ackedAt
        self.ackEventId = ackEventId
    }

    enum CodingKeys: String, CodingKey {
        case text, state, ack
        case sentAt = "sent_at"
        case eventId = "event_id"
        case ackedAt = "acked_at"
        case ackEventId = "ack_event_id"
    }
}

/// Where a guidance line stands. An open set of values, so a newer server's state decodes.
public struct GuidanceState: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// Written, not acknowledged yet.
    public static let pending: GuidanceState = "pending"
    /// ralph wrote `human.guidance.ack` after it.
    public static let acknowledged: GuidanceState = "acknowledged"
}
