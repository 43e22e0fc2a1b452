/// `POST /api/notifications/live-activities`: the iOS app started a Live Activity for a run or a conversation and
/// hands the server the activity's push token, so that the server keeps the lock screen current through APNs
/// `liveactivity` pushes while the app is suspended, and ends the activity when the run ends.
public struct RegisterLiveActivityRequest: Codable, Hashable, Sendable {
    /// What the activity follows: a run (`session`) or a `conversation`.
    public var subject: LiveActivitySubject.Kind
    /// The run's or conversation's id.
    public var subjectId: String
    /// The activity's push token (ActivityKit's `pushTokenUpdates`), hex.
    public var pushToken: String
    /// `sandbox` for development builds, `production` for TestFlight and App Store builds.
    public var environment: APNsEnvironment
    /// What the activity shows now: the server sends an update at once when its own state differs (nil: always).
    public var state: LiveActivityState?

    public init(subject: LiveActivitySubject.Kind, subjectId: String, pushToken: String, environment: APNsEnvironment, state: LiveActivityState? = nil) {
        self.subject = subject
        self.subjectId = subjectId
        self.pushToken = pushToken
        self.environment = environment
        self.state = state
    }

    enum CodingKeys: String, CodingKey {
        case subject, environment, state
        case subjectId = "subject_id"
        case pushToken = "push_token"
    }
}
