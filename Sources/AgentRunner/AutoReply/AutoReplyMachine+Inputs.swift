import Foundation
import RalphAPI

/// What the auto-reply loop is told and what it answers: a person's controls (which may be refused), what the
/// conversation did (never refused), and the actions the server carries out.
extension AutoReplyMachine {
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case invalidSettings([String])
        case alreadyRunning
        /// Pause while not running.
        case notRunning
        /// Resume while not paused.
        case notPaused
        case alreadyStopped
        /// Start with `enabled: false`.
        case disabled

        public var description: String {
            switch self {
            case .invalidSettings(let problems): "invalid auto-reply settings: " + problems.joined(separator: "; ")
            case .alreadyRunning: "auto-reply is already running or paused (use resume)"
            case .notRunning: "auto-reply is not running"
            case .notPaused: "auto-reply is not paused"
            case .alreadyStopped: "auto-reply is already stopped"
            case .disabled: "auto-reply is disabled in the settings"
            }
        }
    }

    public enum Input: Sendable, Hashable {
        /// `conversationIdle`: no turn running or queued, so the first prompt is sent at once.
        case start(now: Date, conversationIdle: Bool)
        /// By a person.
        case pause(now: Date)
        case resume(now: Date, conversationIdle: Bool)
        /// By a person: `stop_reason` manual.
        case stop(now: Date)
        /// Validated; allowed in any state; a running loop uses the new limits from its next turn end. `enabled: false`
        /// stops a running or paused loop.
        case updateSettings(AutoReplySettings, now: Date)
        /// What the conversation did (never refused); the same as ``AutoReplyMachine/observe(_:)``.
        case observed(Observation)

        /// ``Observation/turnEnded(reply:failed:error:now:)`` as an input.
        public static func turnEnded(reply: String, failed: Bool, error: String?, now: Date) -> Input {
            .observed(.turnEnded(reply: reply, failed: failed, error: error, now: now))
        }
        /// ``Observation/judged(confidence:nextPrompt:now:)`` as an input.
        public static func judged(confidence: Double?, nextPrompt: String?, now: Date) -> Input {
            .observed(.judged(confidence: confidence, nextPrompt: nextPrompt, now: now))
        }
        /// ``Observation/approvalPending(now:)`` as an input.
        public static func approvalPending(now: Date) -> Input { .observed(.approvalPending(now: now)) }
        /// ``Observation/approvalsResolved(now:)`` as an input.
        public static func approvalsResolved(now: Date) -> Input { .observed(.approvalsResolved(now: now)) }
        /// ``Observation/manualMessage(now:)`` as an input.
        public static func manualMessage(now: Date) -> Input { .observed(.manualMessage(now: now)) }
        /// ``Observation/restarted(now:)`` as an input.
        public static func restarted(now: Date) -> Input { .observed(.restarted(now: now)) }
        /// ``Observation/tick(now:)`` as an input.
        public static func tick(now: Date) -> Input { .observed(.tick(now: now)) }
    }

    public enum Action: Sendable, Hashable {
        /// Send as a user message (queued behind a running turn).
        case send(prompt: String)
        /// Ask the judge; answer with ``Input/judged(confidence:nextPrompt:now:)``.
        case judge(reply: String)
        /// The state changed: persist the machine and publish `auto_reply`.
        case progress(AutoReplyProgress)
        /// Also tell the person on the global stream (showstopper, stuck, error, limit reached, completion).
        case notice(AutoReplyProgress)
    }

    /// What happened in the conversation, as opposed to a person's control: these inputs are never refused, so the
    /// parent machine (``ConversationCore``) can feed them without a `try` that could hide a refusal.
    public enum Observation: Sendable, Hashable {
        /// Every turn of the conversation that ends (complete or error); `reply` is the turn's assistant text.
        case turnEnded(reply: String, failed: Bool, error: String?, now: Date)
        /// The answer to ``Action/judge(reply:)``; a nil confidence means the judge failed: the rules decide.
        case judged(confidence: Double?, nextPrompt: String?, now: Date)
        case approvalPending(now: Date)
        /// No approval pending any more.
        case approvalsResolved(now: Date)
        /// A person sent a message themselves.
        case manualMessage(now: Date)
        /// The server restarted (the machine was restored from JSON).
        case restarted(now: Date)
        /// Only acts on a judge that did not answer within its timeout (`judge.timeout_secs`, default 20 s): the
        /// rules decide instead. A time limit is checked at turn ends only (the loop cannot know from a tick
        /// whether a turn is running), so a `time_based` loop stops within one turn of its deadline.
        case tick(now: Date)
    }
}
