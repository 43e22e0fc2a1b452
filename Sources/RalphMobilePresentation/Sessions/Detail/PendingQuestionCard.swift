import Foundation
import RalphAPI

/// The card of a question ralph is waiting on (`human.interact`), above the sections.
public struct PendingQuestionCard: Sendable, Equatable {
    public var questionID: String
    public var text: String
    public var hat: String?
    /// `Asked 2m ago · iteration 3 · times out in 3m 2s (estimated)`.
    public var detailText: String
    /// Whether the person may answer (operator or admin).
    public var canAnswer: Bool
    /// `An operator can answer it.` for a viewer.
    public var note: String?

    public init(question: PendingQuestion, capabilities: Capabilities, now: Date = Date()) {
        questionID = question.id
        text = question.questionText
        hat = question.hat
        detailText = "Asked \(Formatting.relativeTime(question.askedAt, now: now)) · iteration \(question.iteration) · times out \(Formatting.timeUntil(question.timeoutAt, now: now))"
            + (question.timeoutEstimated ? " (estimated)" : "") + (question.source == "web" ? " · asked through RObot web mode" : "")
        canAnswer = capabilities.canSteer
        note = canAnswer ? nil : "An operator can answer it."
    }
}
