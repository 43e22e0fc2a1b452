import RalphAPI

/// How the notification settings name things.
public enum NotificationWords {
    /// What each kind is, for its switch.
    public static func title(_ kind: NotificationKind) -> String {
        switch kind {
        case .approval: "Tool approvals waiting"
        case .question: "RObot questions waiting"
        case .runFinished: "Runs finished"
        case .autoReply: "Auto-reply loops stopped or paused"
        case .turnStalled: "Chat turns stalled"
        case .runSilent: "Live runs gone silent"
        case .runSuspended: "Runs suspended by a hook"
        }
    }

    /// A line under the kind's switch.
    public static func subtitle(_ kind: NotificationKind) -> String {
        switch kind {
        case .approval: "A conversation's tool call waits for Allow or Deny."
        case .question: "A run asks you something (human.interact) before its timeout."
        case .runFinished: "Completed, failed or stopped, with the reason."
        case .autoReply: "Its limit, completion, a showstopper, stuck, or an error."
        case .turnStalled: "A running turn has said nothing for a while."
        case .runSilent: "A live run has written no event for longer than the server's threshold."
        case .runSuspended: "A lifecycle hook suspended a run; it waits until you resume it."
        }
    }

    public static func title(_ channel: NotificationChannel) -> String {
        switch channel {
        case .webPush: "Web Push (the web dashboard)"
        case .apns: "Apple Push (this app)"
        case .ntfy: "ntfy"
        case .webhook: "Webhook"
        }
    }

    /// The channel's state as the server reports it: `Ready`, or why not (`APNs not configured: …`).
    public static func status(_ state: NotificationSettings.ChannelState) -> String {
        if state.available { return state.reason.map { "Ready — \($0)" } ?? "Ready" }
        let reason = state.reason ?? "the server did not say why"
        guard state.channel == .apns else { return "Not available: \(reason)" }
        // The server's reason may say it already ("APNs is not configured: start the server with --apns-key …").
        return reason.lowercased().hasPrefix("apns") ? reason : "APNs not configured: \(reason)"
    }

    public static func title(_ privacy: NotificationPrivacy) -> String {
        switch privacy {
        case .full: "Full text"
        case .private: "Content-free"
        }
    }

    public static func subtitle(_ privacy: NotificationPrivacy) -> String {
        switch privacy {
        case .full: "Names the run or conversation, the tool and its command, the question."
        case .private: "Says only what happened (\"An approval is waiting\"): nothing readable on a locked screen."
        }
    }

    /// A test delivery's outcome, in a sentence.
    public static func outcome(_ delivery: NotificationDelivery) -> String {
        let status = delivery.status.map { " (HTTP \($0))" } ?? ""
        switch delivery.outcome {
        case "delivered": return "Sent: the \(channelNoun(delivery.channel)) took it\(status). Check that it arrived."
        case "expired": return "Gone: \(delivery.detail ?? "the subscription no longer exists")."
        case "failed": return "Not delivered\(status): \(delivery.detail ?? "no answer")."
        default: return "\(delivery.outcome)\(status)\(delivery.detail.map { ": \($0)" } ?? "")"
        }
    }

    static func channelNoun(_ channel: NotificationChannel) -> String {
        switch channel {
        case .webPush: "push service"
        case .apns: "Apple Push service"
        case .ntfy: "ntfy server"
        case .webhook: "webhook"
        }
    }
}
