import Foundation
import RalphAPI
import RalphFiles

/// What runs tell people, from the catalog's changes: a question waiting (and its withdrawal once answered or timed
/// out), a run a hook suspended (+Suspension), a run that finished, a live run that went silent. Remembers what it saw of each run to notice transitions.
///
/// A finished run seen for the first time (at start-up) is reported only if it ended within ``recentEnd``: after a
/// crash between the end and its notification, the notification is still made (its key makes it once), while a
/// server started on an old workspace does not report every run it ever had.
struct RunNotificationRules {
    static let recentEnd: TimeInterval = 600

    private var live: Set<String> = []
    /// The question each run is waiting on.
    private var questions: [String: PendingQuestion] = [:]
    /// Each live run's event count and when it last changed.
    private var activity: [String: (lines: Int, since: Date)] = [:]
    /// The hook suspension each live run is held in (``suspensionKey(_:generation:)``).
    var suspensions: [String: String] = [:]

    mutating func events(for change: RunCatalog.Change, now: Date) -> [NotificationEvent] {
        switch change {
        case .added(let snapshot):
            if snapshot.isLive {
                live.insert(snapshot.id)
                activity[snapshot.id] = (snapshot.state.lineCount, now)
                return questionEvents(snapshot, now: now) + suspensionEvents(snapshot)
            }
            guard let ended = snapshot.state.lastEventDate, now.timeIntervalSince(ended) < Self.recentEnd else { return [] }
            return [finished(snapshot)]
        case .appended(let snapshot, _), .updated(let snapshot), .reset(let snapshot):
            if snapshot.isLive {
                live.insert(snapshot.id)
                if activity[snapshot.id]?.lines != snapshot.state.lineCount { activity[snapshot.id] = (snapshot.state.lineCount, now) }
                return questionEvents(snapshot, now: now) + suspensionEvents(snapshot)
            }
            guard live.remove(snapshot.id) != nil else { return [] }
            activity[snapshot.id] = nil
            return questionEvents(snapshot, now: now) + suspensionEvents(snapshot) + [finished(snapshot)]
        case .removed(let id):
            live.remove(id)
            activity[id] = nil
            questions[id] = nil
            suspensions[id] = nil
            return []
        }
    }

    /// Live runs silent for `threshold` or more (each silence once: the key names the event count it stopped at).
    /// `paused` runs and runs a lifecycle hook holds suspended are silent on purpose and are left out.
    func silentRuns(_ snapshots: [RunSnapshot], threshold: TimeInterval, paused: (String) -> Bool, now: Date) -> [NotificationEvent] {
        snapshots.compactMap { snapshot in
            guard snapshot.isLive, !paused(snapshot.id), !snapshot.isSuspended, let seen = activity[snapshot.id], seen.lines == snapshot.state.lineCount,
                now.timeIntervalSince(seen.since) >= threshold
            else { return nil }
            let name = Self.name(snapshot)
            let silent = Int(now.timeIntervalSince(seen.since))
            let content = NotificationContent(
                title: "\(name): silent for \(NotificationText.duration(silent))",
                body: "No event since iteration \(snapshot.state.iteration)\(snapshot.state.hat.map { " (\($0))" } ?? ""). It may be stuck.",
                privateTitle: "A run has gone quiet", privateBody: "", path: "/#/sessions/\(snapshot.id)")
            return NotificationEvent(
                key: "run:\(snapshot.id):silent:\(snapshot.generation):\(seen.lines)", kind: .runSilent, subject: "session", subjectID: snapshot.id,
                tag: "silent-\(snapshot.id)", content: content)
        }
    }

    /// A new question, or the withdrawal of the one that is no longer waiting.
    private mutating func questionEvents(_ snapshot: RunSnapshot, now: Date) -> [NotificationEvent] {
        let pending = snapshot.pendingQuestion(now: now)
        let previous = questions[snapshot.id]
        guard pending?.id != previous?.id else { return [] }
        questions[snapshot.id] = pending
        var events: [NotificationEvent] = []
        if let previous {
            let content = NotificationContent(
                title: "No longer waiting for an answer", body: NotificationText.clip(previous.questionText), privateTitle: "A question was closed",
                privateBody: "", path: "/#/sessions/\(snapshot.id)")
            events.append(NotificationEvent(
                key: "question:\(previous.id):done", kind: .question, subject: "session", subjectID: snapshot.id, tag: "question-\(previous.id)",
                content: content, withdraw: true))
        }
        if let pending {
            let content = NotificationContent(
                title: "\(Self.name(snapshot)) asks", body: NotificationText.clip(pending.questionText, limit: 600),
                privateTitle: "A run is asking you something", privateBody: "Open Ralph Mobile to answer.", path: "/#/sessions/\(snapshot.id)",
                actions: [.init(action: "answer", title: "Answer", input: true, target: pending.id)], expiresAt: pending.timeoutAt)
            events.append(NotificationEvent(
                key: "question:\(pending.id)", kind: .question, subject: "session", subjectID: snapshot.id, tag: "question-\(pending.id)",
                content: content))
        }
        return events
    }

    private func finished(_ snapshot: RunSnapshot) -> NotificationEvent {
        let status = snapshot.status.rawValue
        let reason = snapshot.stopReason
        let detail = [reason?.reason.replacingOccurrences(of: "_", with: " "), reason?.message].compactMap { $0 }.joined(separator: ": ")
        let content = NotificationContent(
            title: "\(Self.name(snapshot)) \(status)",
            body: NotificationText.clip("After \(snapshot.state.iteration) iterations. \(detail)"),
            privateTitle: "A run \(status)", privateBody: "", path: "/#/sessions/\(snapshot.id)")
        return NotificationEvent(
            key: "run:\(snapshot.id):end:\(snapshot.generation)", kind: .runFinished, subject: "session", subjectID: snapshot.id,
            tag: "run-\(snapshot.id)", content: content)
    }

    /// How a run is named in a notification: its task, else its workspace.
    static func name(_ snapshot: RunSnapshot) -> String {
        if let task = snapshot.state.taskName, !task.isEmpty { return NotificationText.clip(task, limit: 60) }
        let workspace = snapshot.location.relativeWorkspace
        return workspace.isEmpty || workspace == "." ? "Run \(snapshot.id.prefix(12))" : workspace
    }
}
