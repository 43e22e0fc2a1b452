/// Where RObot's web mode (ralph ≥ 2.10) keeps its files: `.ralph/api/`.
extension RalphLayout {
    /// The directory under a state directory (`.ralph/api`), watched for questions and check-ins.
    public static let apiDirectoryName = "api"
    public static let robotQuestionName = "robot-question.json"
    public static let robotResponseName = "robot-response.json"
    public static let robotCheckinName = "robot-checkin.json"

    public static func apiDirectory(stateDirectory: String) -> String { stateDirectory + "/" + apiDirectoryName }
    public static func robotQuestion(stateDirectory: String) -> String { apiDirectory(stateDirectory: stateDirectory) + "/" + robotQuestionName }
    public static func robotResponse(stateDirectory: String) -> String { apiDirectory(stateDirectory: stateDirectory) + "/" + robotResponseName }
    public static func robotCheckin(stateDirectory: String) -> String { apiDirectory(stateDirectory: stateDirectory) + "/" + robotCheckinName }

    public var robotQuestion: String { Self.robotQuestion(stateDirectory: stateDirectory) }
    public var robotResponse: String { Self.robotResponse(stateDirectory: stateDirectory) }
    public var robotCheckin: String { Self.robotCheckin(stateDirectory: stateDirectory) }
}
