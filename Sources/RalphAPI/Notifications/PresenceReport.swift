/// `POST /api/notifications/presence`: a page or app in the foreground says what it shows, again at least every
/// ``PresenceReport/refreshSeconds`` while it stays there, and `foreground: false` when it leaves. A person looking at
/// a conversation or run is not buzzed for it; presence expires on its own if the reports stop.
public struct PresenceReport: Codable, Hashable, Sendable {
    /// How long one report counts.
    public static let refreshSeconds = 30

    /// Which registered device reports (so it is not buzzed itself while in the foreground), if it is one.
    public var deviceId: String?
    public var foreground: Bool
    /// What the screen shows: `session` or `conversation` with its ``subjectId``, or anything else (`list`,
    /// `approvals`, `settings`) for screens about no one thing.
    public var screen: String?
    public var subjectId: String?

    public init(deviceId: String? = nil, foreground: Bool, screen: String? = nil, subjectId: String? = nil) {
        self.deviceId = deviceId
        self.foreground = foreground
        self.screen = screen
        self.subjectId = subjectId
    }

    enum CodingKeys: String, CodingKey {
        case foreground, screen
        case deviceId = "device_id"
        case subjectId = "subject_id"
    }
}
