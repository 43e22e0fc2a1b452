import Foundation

/// How the server notifies (from its flags).
public struct NotificationConfiguration: Sendable {
    /// The server's public URL (`--public-url`), for links and for ntfy's buttons that call it back.
    public var publicURL: String?
    /// The VAPID subject (`--vapid-subject`): a `mailto:` address or `https:` URL of whoever runs the server.
    public var vapidSubject: String?
    /// A live run silent this long is reported (`--notify-silence`, seconds; 0 turns it off).
    public var silenceAfter: TimeInterval = 600
    /// Notifications of one kind to one device within this window are folded into one message.
    public var foldWindow: TimeInterval = 10
    /// How long an approval's buttons work.
    public var approvalTokenLifetime: TimeInterval = 900
    /// Attempts before a delivery is given up.
    public var maxAttempts = 8
    /// The longest wait between attempts.
    public var maxBackoff: TimeInterval = 300
    /// The shortest time between two routine updates of one Live Activity (waiting for a person and the end are
    /// sent at once): iOS budgets the updates an app may push.
    public var liveActivityMinInterval: TimeInterval = 2
    /// Live Activities one key may have the server keep current.
    public var maxLiveActivitiesPerKey = 16
    /// APNs credentials (`--apns-key`, `--apns-key-id`, `--apns-team-id`, `--apns-topic`); nil without them.
    public var apns: APNsCredentials?

    public init() {}
}

/// The developer's own APNs token-authentication key, and what the app is.
public struct APNsCredentials: Sendable {
    /// The `.p8` file.
    public var keyFile: String
    public var keyID: String
    public var teamID: String
    /// The app's bundle id: the `apns-topic` (live activities add `.push-type.liveactivity`).
    public var topic: String
    /// Overrides the APNs hosts (tests point it at a local HTTP/2 receiver).
    public var hostOverride: String?
    /// A PEM certificate authority to trust instead of the system's (the local receiver's own).
    public var trustRootsFile: String?

    public init(keyFile: String, keyID: String, teamID: String, topic: String, hostOverride: String? = nil, trustRootsFile: String? = nil) {
        self.trustRootsFile = trustRootsFile
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.hostOverride = hostOverride
    }
}
