/// `GET /api/robot/questions`.
public struct RobotQuestionsResponse: Codable, Hashable, Sendable {
    public var questions: [PendingQuestion]
    public init(questions: [PendingQuestion]) { self.questions = questions }
}
