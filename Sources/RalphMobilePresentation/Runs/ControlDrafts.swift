import Foundation
import RalphAPI
import RalphMobileKit

/// What the emit sheet holds: a topic and a payload, checked before anything is sent.
///
/// The topic follows the contract's rule (``Topic/problem(with:)``: letters, digits, `.`, `_`, `-`, at most 128); the
/// payload the SDK's (``EmitPayload``: empty is none, `{…}` / `[…]` must be valid JSON, anything else is text).
/// Problems show once the person has tried to send (``showsProblems``), not while they type the first character.
public struct EmitDraft: Sendable, Equatable {
    public var topic: String
    public var payload: String
    /// Set by a send attempt that found a problem; the sheet then shows ``topicProblem`` and ``payloadProblem``.
    public var showsProblems = false

    public init(topic: String = "", payload: String = "") {
        self.topic = topic
        self.payload = payload
    }

    /// The topic as sent: surrounding whitespace dropped.
    public var trimmedTopic: String { topic.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Why the topic cannot be sent.
    public var topicProblem: String? {
        let topic = trimmedTopic
        if topic.isEmpty { return "Enter a topic, e.g. build.task." }
        if topic.count > Topic.maxLength { return "A topic has at most \(Topic.maxLength) characters (this one has \(topic.count))." }
        if Topic.problem(with: topic) != nil { return "Only letters, digits, “.”, “_” and “-” are allowed (no spaces)." }
        return nil
    }

    /// Why the payload cannot be sent.
    public var payloadProblem: String? {
        if case .failure(let problem) = EmitPayload.parse(payload) { return problem.message.prefix(1).uppercased() + problem.message.dropFirst() + "." }
        return nil
    }

    /// The request to send, or nil while something is wrong.
    public var request: EmitRequest? {
        guard topicProblem == nil, case .success(let value) = EmitPayload.parse(payload) else { return nil }
        return EmitRequest(topic: trimmedTopic, payload: value)
    }

    /// Under the payload field: what it will send, and the rule.
    public var payloadFooter: String {
        payloadHint + ". Starting with { or [ it must be valid JSON and is sent as JSON; anything else is sent as text."
    }

    /// `Sent as JSON`, `Sent as text`, `No payload`: what the payload field will send.
    public var payloadHint: String {
        switch EmitPayload.parse(payload) {
        case .success(nil): "No payload"
        case .success(.string?): "Sent as text"
        case .success: "Sent as JSON"
        case .failure: "Starts like JSON but does not parse"
        }
    }
}

/// What the steer field holds: guidance ralph adds to its next iteration's prompt (`human.guidance`).
public struct SteerDraft: Sendable, Equatable {
    /// When the guidance applies: the steer sheet's "Now (this iteration)" or "Next iteration".
    public enum When: String, Sendable, Equatable, CaseIterable {
        case next
        case now

        public var title: String { self == .now ? "Now (this iteration)" : "Next iteration" }
    }

    public var message: String
    public var when: When = .next
    public var showsProblems = false

    public init(message: String = "", when: When = .next) {
        self.message = message
        self.when = when
    }

    public var trimmedMessage: String { message.trimmingCharacters(in: .whitespacesAndNewlines) }

    public var problem: String? { trimmedMessage.isEmpty ? "Write the guidance first." : nil }
}

/// The answer to a RObot question (`POST /api/robot/response`).
public struct AnswerDraft: Sendable, Equatable {
    /// The question being answered; typing is kept while the same question is pending.
    public var questionID: String?
    public var text: String
    public var showsProblems = false

    public init(questionID: String? = nil, text: String = "") {
        self.questionID = questionID
        self.text = text
    }

    public var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    public var problem: String? { trimmedText.isEmpty ? "Write an answer first." : nil }
}

/// The confirmation step before a run is stopped.
public struct StopConfirmation: Sendable, Equatable, Identifiable {
    public var sessionID: String
    public var title: String
    public var message: String
    public var confirmLabel: String
    public var cancelLabel: String
    /// The confirm button is destructive (red).
    public var isDestructive: Bool
    public var id: String { sessionID }

    /// Whether confirming forces the stop (a graceful one is already pending).
    public var force: Bool

    public init(session: Session) {
        sessionID = session.id
        force = ControlWords.nextStopForces(session)
        let task = session.taskName.map { Formatting.oneLine($0, max: 60) } ?? ""
        let name = task.isEmpty ? "run \(Formatting.id8(session.id))" : "“\(task)”"
        let at = "\(name.prefix(1).uppercased() + name.dropFirst()) is at iteration \(Formatting.iteration(session.iteration, of: session.total)). "
        if force {
            title = "Force-stop this run?"
            message = at + "A stop at the end of the iteration is already pending. Forcing sends ralph SIGTERM and a few seconds to write "
                + "loop.terminate and exit; then it is killed. The run cannot be resumed."
            confirmLabel = "Force stop"
        } else {
            title = "Stop this run?"
            message = at + "ralph finishes this iteration, then stops and records it (its own loop.terminate). The run cannot be resumed."
            confirmLabel = "Stop at end of iteration"
        }
        cancelLabel = "Cancel"
        isDestructive = true
    }
}

/// What a control did, for a short notice on the screen.
public struct ControlOutcome: Sendable, Equatable {
    public var text: String
    public var isError: Bool

    public init(text: String, isError: Bool) {
        self.text = text
        self.isError = isError
    }

    /// The line number of an event id the server returned (`17:3fa2c901` → `17`).
    static func eventNumber(_ id: String) -> String { SessionEventID(id).map { String($0.line) } ?? id }
}
