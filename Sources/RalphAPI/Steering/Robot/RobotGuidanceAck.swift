/// `200` answer of `POST /api/robot/guidance`.
public struct RobotGuidanceAck: Codable, Hashable, Sendable {
    public var success: Bool
    public var sessionId: String
    public var deliveredAt: String
    public var id: String

    public init(success: Bool, sessionId: String, deliveredAt: String, id: String) {
        self.success = success
        self.sessionId = sessionId
        self.deliveredAt = deliveredAt
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case success, id
        case sessionId = "session_id"
        case deliveredAt = "delivered_at"
    }
}
