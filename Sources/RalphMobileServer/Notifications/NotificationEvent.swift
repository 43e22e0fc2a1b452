import Foundation
import RalphAPI

/// Something a person should hear about, as recorded in the outbox (`notification_events`) — before it is known
/// which devices will be told. The ``key`` makes it idempotent: the thing that caused it ("approval:<id>",
/// "run:<id>:end"), so recording it twice (a restart that sees the same line again) records it once.
public struct NotificationEvent: Sendable, Hashable {
    public var key: String
    public var kind: NotificationKind
    /// `session` or `conversation`.
    public var subject: String
    public var subjectID: String
    /// The notification's identity on a device: a later message with the same tag replaces or withdraws it.
    public var tag: String
    public var content: NotificationContent
    /// True when this withdraws the notifications that carried ``tag`` (the thing was dealt with elsewhere).
    public var withdraw = false
}

/// What a notification says, in full and without content (the device's privacy choice picks one), and the actions
/// it offers. Stored as JSON in the outbox row.
public struct NotificationContent: Codable, Sendable, Hashable {
    public var title: String
    public var body: String
    /// What a content-free notification says ("An approval is waiting").
    public var privateTitle: String
    public var privateBody: String
    /// Where tapping it leads, as a dashboard path.
    public var path: String
    public var actions: [ActionOffer] = []
    /// When the thing stops waiting (a question's timeout).
    public var expiresAt: String?

    /// An action to offer: a token is minted for it per device, at delivery.
    public struct ActionOffer: Codable, Sendable, Hashable {
        /// `allow`, `deny` or `answer`.
        public var action: String
        public var title: String
        public var input: Bool
        /// The approval id or question id the action decides.
        public var target: String
    }

    enum CodingKeys: String, CodingKey {
        case title, body, path, actions
        case privateTitle = "private_title"
        case privateBody = "private_body"
        case expiresAt = "expires_at"
    }
}
