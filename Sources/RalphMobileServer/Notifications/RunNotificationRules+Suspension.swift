import Foundation
import RalphAPI
import RalphFiles

/// A live run that a lifecycle hook suspended (`.ralph/suspend-state.json`) waits for a person: ralph's only real
/// pause, and in `wait_for_resume` mode the loop does nothing until `.ralph/resume-requested` appears. The person is
/// told once per suspension (its key names the hook and ralph's `suspended_at`), with a Resume button that writes that
/// file exactly as the app's Resume does; once the run goes on (resumed anywhere, or it ended) the notification is
/// withdrawn.
extension RunNotificationRules {
    mutating func suspensionEvents(_ snapshot: RunSnapshot) -> [NotificationEvent] {
        let current = snapshot.isSuspended ? snapshot.liveness.suspension : nil
        let key = current.map { Self.suspensionKey($0, generation: snapshot.generation) }
        let previous = suspensions[snapshot.id]
        guard key != previous else { return [] }
        suspensions[snapshot.id] = key
        var events: [NotificationEvent] = []
        if let previous {
            let content = NotificationContent(
                title: "\(Self.name(snapshot)): no longer suspended", body: snapshot.isLive ? "It goes on." : "The run ended.",
                privateTitle: "A run is no longer suspended",
                privateBody: "", path: "/#/sessions/\(snapshot.id)")
            events.append(NotificationEvent(
                key: "run:\(snapshot.id):suspended:\(previous):done", kind: .runSuspended, subject: "session", subjectID: snapshot.id,
                tag: "suspended-\(snapshot.id)", content: content, withdraw: true))
        }
        if let current, let key {
            let content = NotificationContent(
                title: "\(Self.name(snapshot)): suspended by hook \(current.hookName)",
                body: NotificationText.clip(Self.suspensionBody(current, iteration: snapshot.state.iteration), limit: 600),
                privateTitle: "A run is suspended", privateBody: "Open Ralph Mobile to resume it.", path: "/#/sessions/\(snapshot.id)",
                actions: [.init(action: "resume", title: "Resume", input: false, target: snapshot.id)])
            events.append(NotificationEvent(
                key: "run:\(snapshot.id):suspended:\(key)", kind: .runSuspended, subject: "session", subjectID: snapshot.id,
                tag: "suspended-\(snapshot.id)", content: content))
        }
        return events
    }

    /// One suspension: the run's generation, the hook, and when ralph suspended the loop (a new suspension by the same
    /// hook has a new `suspended_at`).
    static func suspensionKey(_ suspension: Suspension, generation: Int) -> String {
        "\(generation):\(suspension.hookName):\(suspension.since ?? suspension.phase)"
    }

    /// Why, where, and what the loop does meanwhile (ralph's `suspend_mode`).
    static func suspensionBody(_ suspension: Suspension, iteration: Int) -> String {
        let why = suspension.reason.map { "\($0) " } ?? ""
        let waiting = switch suspension.suspendMode {
        case "retry_backoff": "ralph retries the hook with backoff; Resume goes on now."
        case "wait_then_retry": "ralph waits, then retries the hook; Resume goes on now."
        default: "It waits until you resume it."
        }
        return "\(why)at \(suspension.phase) (iteration \(iteration)). \(waiting)"
    }
}
