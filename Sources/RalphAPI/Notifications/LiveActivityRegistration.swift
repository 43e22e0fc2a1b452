/// A Live Activity the server keeps current (``RegisterLiveActivityRequest``), with how its updates went. The push
/// token itself is never shown again.
public struct LiveActivityRegistration: Codable, Hashable, Sendable {
    public var id: String
    public var subject: LiveActivitySubject.Kind
    public var subjectId: String
    public var environment: APNsEnvironment
    public var createdAt: String
    /// The last state APNs took (or that was given up on), nil before the first update.
    public var lastState: LiveActivityState?
    public var lastSentAt: String?
    /// Updates APNs accepted.
    public var updatesSent: Int
    /// `delivered`, `retrying` or `failed`, for the last update.
    public var lastOutcome: String?
    /// Why the last update failed.
    public var lastError: String?

    public init(
        id: String, subject: LiveActivitySubject.Kind, subjectId: String, environment: APNsEnvironment, createdAt: String,
        lastState: LiveActivityState? = nil, lastSentAt: String? = nil, updatesSent: Int = 0, lastOutcome: String? = nil, lastError: String? = nil
    ) {
        self.id = id
        self.subject = subject
        self.subjectId = subjectId
        self.environment = environment
        self.createdAt = createdAt
        self.lastState = lastState
        self.lastSentAt = lastSentAt
        self.updatesSent = updatesSent
        self.lastOutcome = lastOutcome
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey {
        case id, subject, environment
        case subjectId = "subject_id"
        case createdAt = "created_at"
        case lastState = "last_state"
        case lastSentAt = "last_sent_at"
        case updatesSent = "updates_sent"
        case lastOutcome = "last_outcome"
        case lastError = "last_error"
    }
}

/// `GET /api/notifications/live-activities`: the Live Activities of the caller's key (every one for an admin).
public struct LiveActivityRegistrationList: Codable, Hashable, Sendable {
    public var liveActivities: [LiveActivityRegistration]

    public init(liveActivities: [LiveActivityRegistration]) {
        self.liveActivities = liveActivities
    }

    enum CodingKeys: String, CodingKey {
        case liveActivities = "live_activities"
    }
}
