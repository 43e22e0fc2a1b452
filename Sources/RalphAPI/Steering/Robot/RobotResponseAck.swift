/// `200` answer of `POST /api/robot/response`.
public struct RobotResponseAck: Codable, Hashable, Sendable {
    public var success: Bool
    public var questionId: String
    public var deliveredAt: String
    /// Id of the `human.response` event.
    public var id: String

    public init(success: Bool, questionId: String, deliveredAt: String, id: String) {
        self.success = success
        self.questionId = questionId
        self.deliveredAt = deliveredAt
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case success, id
        case questionId = "question_id"
        case deliveredAt = "delivered_at"
    }
}
