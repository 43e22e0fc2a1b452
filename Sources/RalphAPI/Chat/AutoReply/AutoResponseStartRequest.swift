/// `POST /api/chat/auto-response/start` (alias documented by the app we replace).
public struct AutoResponseStartRequest: Codable, Hashable, Sendable {
    public var sessionId: String
    public var settings: AutoReplySettings?
    public init(sessionId: String, settings: AutoReplySettings?) {
        self.sessionId = sessionId
        self.settings = settings
    }
}
