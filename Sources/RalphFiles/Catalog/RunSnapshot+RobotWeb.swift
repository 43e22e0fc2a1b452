import Foundation
import RalphAPI

/// RObot web mode (ralph ≥ 2.10) as a run shows it: the question ralph waits on in `.ralph/api/robot-question.json`
/// and its latest check-in.
extension RunSnapshot {
    /// The marker in a web question's id (`<session id>-robot-<question id>`): answering it writes
    /// `robot-response.json` instead of a `human.response` line.
    public static let robotQuestionMarker = "-robot-"

    /// The web-mode question the live run waits on: the file is there and the run's `human.interact` has no answer
    /// yet (a file left behind by an answered or timed-out question is not shown). Its timeout is the question's own
    /// `timeout_seconds` (0: none, shown as the 5-minute estimate).
    public func webPendingQuestion(now: Date = Date()) -> PendingQuestion? {
        guard isLive, let event = summary.pendingQuestion, let question = liveness.robot.question else { return nil }
        let asked = question.askedAt ?? event.date ?? startDate ?? now
        let configured = question.timeoutSeconds.flatMap { $0 > 0 ? Double($0) : nil } ?? config?.robotTimeoutSeconds.map(Double.init)
        let deadline = asked.addingTimeInterval(configured ?? Self.defaultQuestionTimeout)
        if configured != nil, deadline < now { return nil }
        return PendingQuestion(
            id: "\(id)\(Self.robotQuestionMarker)\(question.id)", questionText: question.text.isEmpty ? event.payloadText ?? "" : question.text,
            sessionId: id, askedAt: Timestamp.format(asked), timeoutAt: Timestamp.format(deadline), timeoutEstimated: configured == nil,
            iteration: question.iteration ?? event.iteration ?? summary.iteration, hat: question.hat ?? event.hat ?? summary.hat, eventId: event.id,
            source: "web"
        )
    }

    /// ralph's latest web-mode check-in, while the run is live.
    public var robotCheckin: RobotCheckin? { isLive ? liveness.robot.checkin : nil }
}
