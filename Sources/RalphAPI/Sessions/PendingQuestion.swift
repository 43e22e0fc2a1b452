/// A `human.interact` question of a run that has no `human.response` yet.
///
/// Shape of the original `PendingQuestion` (`asked_at`, `timeout_at` strings; `iteration` unsigned).
public struct PendingQuestion: Codable, Hashable, Sendable {
    /// `<session id>-<event id>`, stable across restarts.
    public var id: String
    public var questionText: String
    public var sessionId: String
    public var askedAt: String
    /// When ralph stops waiting: `RObot.timeout_seconds` of the workspace config, or 5 minutes after `asked_at`
    /// (the original server's convention) when the config does not say, with ``timeoutEstimated`` set.
    /// Always present: the RalphMobile client requires it.
    public var timeoutAt: String
    /// True when ``timeoutAt`` is the 5-minute estimate rather than the configured timeout.
    public var timeoutEstimated: Bool
    public var iteration: Int
    public var hat: String?
    /// Event id of the question.
    public var eventId: Int
    /// How ralph waits for the answer: `events` (a `human.response` line in the events file, Telegram mode and older
    /// ralphs) or `web` (RObot web mode: `.ralph/api/robot-response.json`). Absent from older servers: `events`.
    public var source: String?

    public init(
        id: String, questionText: String, sessionId: String, askedAt: String, timeoutAt: String, timeoutEstimated: Bool, iteration: Int,
        hat: String?, eventId: Int, source: String? = nil
    ) {
        self.id = id
        self.questionText = questionText
        self.sessionId = sessionId
        self.askedAt = askedAt
        self.timeoutAt = timeoutAt
        self.timeoutEstimated = timeoutEstimated
        self.iteration = iteration
        self.hat = hat
        self.eventId = eventId
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat, source
        case questionText = "question_text"
        case sessionId = "session_id"
        case askedAt = "asked_at"
        case timeoutAt = "timeout_at"
        case timeoutEstimated = "timeout_estimated"
        case eventId = "event_id"
    }
}
