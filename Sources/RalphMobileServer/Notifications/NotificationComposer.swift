import Foundation
import RalphAPI

/// Turns due deliveries for one device into the one message it is sent (pure but for minting tokens, which it asks
/// the caller to do).
///
/// One delivery: its event's words (full or private, as the device chose) and actions. Several of one kind at once (a
/// burst held for the fold window): one message that counts them ("3 approvals waiting"), opening the list, without
/// actions (a single button cannot say which one it decides).
enum NotificationComposer {
    struct Options {
        /// Whether the device's key may decide (operator or more): otherwise no buttons.
        var mayAct: Bool
        /// The absolute URL of `POST /api/notifications/actions`, or its path when the server has no public URL.
        var actionURL: String
        var now: Date
        /// Makes the token of one action offer.
        var mint: (NotificationContent.ActionOffer) -> String
    }

    static func message(for group: [DueDelivery], device: StoredDevice, options: Options) -> NotificationMessage {
        let first = group[0]
        let event = first.event.event
        let quiet = device.registration.quietHours?.contains(options.now) == true ? true : nil
        let privateWords = device.privacy == .private
        if group.count > 1 {
            let noun = plural(event.kind, group.count)
            return NotificationMessage(
                id: first.messageID, kind: event.kind, subject: event.subject, subjectId: event.subjectID, title: "\(group.count) \(noun)",
                body: privateWords ? "Open Ralph Mobile to see them." : group.map { $0.event.event.content.title }.joined(separator: "\n"),
                tag: "\(event.kind.rawValue)-burst", path: listPath(event.kind), actions: [], count: group.count, quiet: quiet,
                createdAt: Timestamp.format(options.now))
        }
        let content = event.content
        let actions = options.mayAct && !event.withdraw
            ? content.actions.map { offer in
                NotificationAction(action: offer.action, title: offer.title, token: options.mint(offer), url: options.actionURL, input: offer.input)
            }
            : []
        return NotificationMessage(
            id: first.messageID, kind: event.kind, subject: event.subject, subjectId: event.subjectID,
            title: privateWords ? content.privateTitle : content.title, body: privateWords ? content.privateBody : content.body, tag: event.tag,
            path: content.path, actions: actions, expiresAt: content.expiresAt, withdraw: event.withdraw ? true : nil, quiet: quiet,
            createdAt: Timestamp.format(options.now))
    }

    private static func plural(_ kind: NotificationKind, _ count: Int) -> String {
        switch kind {
        case .approval: "approvals waiting"
        case .question: "questions waiting"
        case .runFinished: "runs finished"
        case .autoReply: "auto-reply loops stopped"
        case .turnStalled: "conversations stalled"
        case .runSilent: "runs silent"
        case .runSuspended: "runs suspended"
        }
    }

    private static func listPath(_ kind: NotificationKind) -> String {
        switch kind {
        case .approval: "/#/approvals"
        case .autoReply, .turnStalled: "/#/chats"
        case .question, .runFinished, .runSilent, .runSuspended: "/#/sessions"
        }
    }
}
