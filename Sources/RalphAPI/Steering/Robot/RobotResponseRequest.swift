/// `POST /api/robot/response`.
public struct RobotResponseRequest: Codable, Hashable, Sendable {
    public var questionId: String
    public var responseText: String

    public init(questionId: String, responseText: String) {
        self.questionId = questionId
        self.responseText = responseText
    }

    enum CodingKeys: String, CodingKey {
        case questionId = "question_id"
        case responseText = "response_text"
    }
}
