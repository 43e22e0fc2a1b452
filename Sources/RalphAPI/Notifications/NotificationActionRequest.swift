/// `POST /api/notifications/actions`: carries out a notification's action. Needs no API key: ``token`` is the
/// credential (single-use, expiring, for one decision on one thing).
public struct NotificationActionRequest: Codable, Hashable, Sendable {
    public var token: String
    /// The typed text of an `answer` action (the answer to a question); for `deny`, an optional message to the agent.
    public var text: String?

    public init(token: String, text: String? = nil) {
        self.token = token
        self.text = text
    }
}

/// The answer to ``NotificationActionRequest``: what was done.
public struct NotificationActionResponse: Codable, Hashable, Sendable {
    /// `allow`, `deny` or `answer`.
    public var action: String
    public var subject: String
    public var subjectId: String
    /// Words for the notification that is updated after the action ("Allowed: Bash").
    public var detail: String

    public init(action: String, subject: String, subjectId: String, detail: String) {
        self.action = action
        self.subject = subject
        self.subjectId = subjectId
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case action, subject, detail
        case subjectId = "subject_id"
    }
}
