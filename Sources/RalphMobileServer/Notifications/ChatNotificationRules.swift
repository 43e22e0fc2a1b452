import AgentRunner
import Foundation
import RalphAPI

/// What a conversation's step tells people: read from the step's actions, recorded in the step's own transaction.
///
/// - an approval saved as pending → `approval` with Allow and Deny; saved decided or cancelled → its withdrawal;
/// - a `status` event saying `stalled` → `turn_stalled`;
/// - an `auto_reply` event saying the loop stopped or paused → `auto_reply`, with the reason.
enum ChatNotificationRules {
    static func events(for actions: [ConversationCore.Action], conversation: Conversation) -> [NotificationEvent] {
        actions.compactMap { action in
            switch action {
            case .save(.approval(let approval)): approvalEvent(approval, conversation: conversation)
            case .emit(.status(let status)) where status.status == .stalled: stallEvent(status, conversation: conversation)
            case .emit(.autoReply(let progress)): autoReplyEvent(progress, conversation: conversation)
            default: nil
            }
        }
    }

    static func approvalEvent(_ approval: Approval, conversation: Conversation) -> NotificationEvent {
        let tag = "approval-\(approval.id)"
        let tool = approval.displayName ?? approval.toolName
        let path = "/#/chats/\(conversation.id)"
        guard approval.state == .pending else {
            let outcome = approval.state.rawValue
            let content = NotificationContent(
                title: "\(tool): \(outcome)", body: conversation.title, privateTitle: "An approval was answered", privateBody: "", path: path)
            return NotificationEvent(
                key: "approval:\(approval.id):\(outcome)", kind: .approval, subject: "conversation", subjectID: conversation.id, tag: tag,
                content: content, withdraw: true)
        }
        let content = NotificationContent(
            title: "\(conversation.title): \(tool) wants approval",
            body: NotificationText.clip(approval.description ?? summary(of: approval.input)),
            privateTitle: "An approval is waiting",
            privateBody: "Open Ralph Mobile to see it.",
            path: path,
            actions: [
                .init(action: "allow", title: "Allow", input: false, target: approval.id),
                .init(action: "deny", title: "Deny", input: false, target: approval.id),
            ])
        return NotificationEvent(
            key: "approval:\(approval.id)", kind: .approval, subject: "conversation", subjectID: conversation.id, tag: tag, content: content)
    }

    static func stallEvent(_ status: StatusEvent, conversation: Conversation) -> NotificationEvent {
        let silent = status.silentSecs.map { " for \(NotificationText.duration($0))" } ?? ""
        let content = NotificationContent(
            title: "\(conversation.title): no output\(silent)",
            body: "The agent is still running but has said nothing. Open it to interrupt or wait.",
            privateTitle: "A conversation is stalled", privateBody: "", path: "/#/chats/\(conversation.id)")
        return NotificationEvent(
            key: "stall:\(conversation.id):\(status.turnId ?? "-")", kind: .turnStalled, subject: "conversation", subjectID: conversation.id,
            tag: "stall-\(conversation.id)", content: content)
    }

    static func autoReplyEvent(_ progress: AutoReplyProgress, conversation: Conversation) -> NotificationEvent? {
        let reason: AutoReplyReason?
        switch progress.state {
        case .running: return nil
        case .stopped: reason = progress.stopReason
        case .paused: reason = progress.pauseReason
        }
        // A person's own stop needs no notification.
        if reason == .manual || reason == .deleted { return nil }
        let why = reason?.rawValue.replacingOccurrences(of: "_", with: " ") ?? "no reason given"
        let content = NotificationContent(
            title: "\(conversation.title): auto-reply \(progress.state.rawValue) (\(why))",
            body: NotificationText.clip(progress.detail ?? "After \(progress.messages) replies in \(NotificationText.duration(progress.elapsedSecs))."),
            privateTitle: "Auto-reply \(progress.state.rawValue)", privateBody: "", path: "/#/chats/\(conversation.id)")
        return NotificationEvent(
            key: "auto-reply:\(conversation.id):\(progress.state.rawValue):\(progress.updatedAt)", kind: .autoReply, subject: "conversation",
            subjectID: conversation.id, tag: "auto-reply-\(conversation.id)", content: content)
    }

    /// A tool's input in one line: its command, file or pattern when it has one, else its JSON.
    static func summary(of input: JSONValue) -> String {
        if let object = input.objectValue {
            for field in ["command", "file_path", "path", "url", "pattern", "prompt"] {
                if case .string(let text)? = object[field] { return text }
            }
        }
        return (try? String(decoding: WireJSON.encode(input), as: UTF8.self)) ?? ""
    }
}
