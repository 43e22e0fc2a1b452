import Foundation
import RalphAPI

/// The words of the auto-reply screens: modes, stop and pause reasons, presets.
public enum AutoReplyWords {
    /// `Smart stop`, `Until completion`, `Time based`, `Message based`, `Hybrid`.
    public static func title(_ mode: AutoReplyMode) -> String {
        switch mode {
        case .smartStop: "Smart stop"
        case .untilCompletion: "Until completion"
        case .timeBased: "Time based"
        case .messageBased: "Message based"
        case .hybrid: "Hybrid"
        }
    }

    /// When the mode stops, in a sentence.
    public static func explanation(_ mode: AutoReplyMode) -> String {
        switch mode {
        case .smartStop: "Stops when a reply looks done (confidence at or above the minimum) or says so."
        case .untilCompletion: "Stops only on an explicit “task complete” (the limits still apply)."
        case .timeBased: "Stops after the maximum minutes (1 min – 8 h)."
        case .messageBased: "Stops after the maximum number of auto-replies (1 – 100)."
        case .hybrid: "Stops at the first of time, messages and completion."
        }
    }

    /// Why a loop stopped or paused, for a person.
    public static func reason(_ reason: AutoReplyReason) -> String {
        switch reason {
        case .manual: "stopped by a person"
        case .completion: "the task looks complete"
        case .timeLimit: "time limit reached"
        case .messageLimit: "message limit reached"
        case .iterationLimit: "cycle limit reached"
        case .error: "a turn failed"
        case .showstopper: "needs a person"
        case .stuck: "the replies repeat"
        case .lowConfidence: "low confidence"
        case .approval: "waiting for an approval"
        case .confirmation: "waiting for your go"
        case .override: "you wrote a message"
        case .restart: "the server restarted"
        case .deleted: "conversation deleted"
        }
    }

    /// What the built-in presets do; another preset's name is shown as it is.
    public static func preset(_ name: String) -> String {
        switch name {
        case "careful": "Careful — stops as soon as it is fairly sure it is done"
        case "overnight": "Overnight — up to 8 h until an explicit “task complete”"
        case "quick": "Quick — 5 auto-replies, then stop"
        case "supervised": "Supervised — every next prompt waits for your go"
        default: name
        }
    }

    /// `42%`.
    public static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded()))%" }
}
