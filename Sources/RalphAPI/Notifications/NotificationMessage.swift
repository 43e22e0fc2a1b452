/// What a device receives: the Web Push payload (decrypted by the service worker), the webhook body, the `ralph`
/// dictionary of an APNs payload, the content of an ntfy message.
///
/// ``withdraw`` messages say that the notification with the same ``tag`` was dealt with elsewhere: a service worker
/// closes it, the iOS app removes it, APNs replaces it through the same collapse id.
public struct NotificationMessage: Codable, Hashable, Sendable {
    /// The delivery's id: the same for every retry (a receiver that sees it twice can drop the second).
    public var id: String
    public var kind: NotificationKind
    /// What the notification is about: `session` (a run) or `conversation`.
    public var subject: String
    public var subjectId: String
    public var title: String
    public var body: String
    /// Identifies the notification on the device: a later message with the same tag replaces or withdraws it.
    public var tag: String
    /// The screen to open, as a path of the web dashboard (`/#/conversations/<id>`); the app maps it to its screen.
    public var path: String
    public var actions: [NotificationAction]
    /// How many waiting things this one stands for, when a burst was folded into one message.
    public var count: Int?
    /// When the thing stops waiting (a question's timeout), if it does.
    public var expiresAt: String?
    /// True for a message that withdraws the notification with ``tag``.
    public var withdraw: Bool?
    /// Sent during the device's quiet hours: shown without sound or vibration.
    public var quiet: Bool?
    public var createdAt: String

    public init(
        id: String, kind: NotificationKind, subject: String, subjectId: String, title: String, body: String, tag: String, path: String,
        actions: [NotificationAction], count: Int? = nil, expiresAt: String? = nil, withdraw: Bool? = nil, quiet: Bool? = nil,
        createdAt: String
    ) {
        self.id = id
        self.kind = kind
        self.subject = subject
        self.subjectId = subjectId
        self.title = title
        self.body = body
        self.tag = tag
        self.path = path
        self.actions = actions
        self.count = count
        self.expiresAt = expiresAt
        self.withdraw = withdraw
        self.quiet = quiet
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, subject, title, body, tag, path, actions, count, withdraw, quiet
        case subjectId = "subject_id"
        case expiresAt = "expires_at"
        case createdAt = "created_at"
    }
}

/// A button on a notification. Pressing it POSTs ``NotificationActionRequest`` with ``token`` to ``url``: the token
/// is the only credential, good once, for this decision on this one thing, for a few minutes.
public struct NotificationAction: Codable, Hashable, Sendable {
    /// `allow`, `deny` or `answer`.
    public var action: String
    public var title: String
    /// Single-use, short-lived, scoped to this decision: never the device's key.
    public var token: String
    /// The absolute URL of `POST /api/notifications/actions` when the server knows its public URL, else the path.
    public var url: String
    /// True when the action takes typed text (an answer to a question, a reason to deny).
    public var input: Bool

    public init(action: String, title: String, token: String, url: String, input: Bool) {
        self.action = action
        self.title = title
        self.token = token
        self.url = url
        self.input = input
    }
}
