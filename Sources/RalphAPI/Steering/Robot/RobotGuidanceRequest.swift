/// `POST /api/robot/guidance`.
public struct RobotGuidanceRequest: Codable, Hashable, Sendable {
    /// The session to guide; may be omitted when exactly one run is live.
    public var sessionId: String?
    public var guidanceText: String

    public init(sessionId: String?, guidanceText: String) {
        self.sessionId = sessionId
        self.guidanceText = guidanceText
    }

    enum CodingKeys: String, CodingKey {
        case sessionId = "session_id"
        case guidanceText = "guidance_text"
    }
}
