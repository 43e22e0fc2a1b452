import Foundation
import RalphAPI

/// The message box of a chat: its text, what is wrong with it, and the ways it can be sent.
public struct ChatComposer: Hashable, Sendable {
    /// The server refuses longer messages.
    public static let maxBytes = 100_000

    public var text = ""

    public init(text: String = "") { self.text = text }

    /// Why the text cannot be sent, worded for a person; nil when it can.
    public var problem: String? { Self.problem(text) }

    public static func problem(_ text: String) -> String? {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "Write a message first." }
        let bytes = ChatFormat.byteCount(text)
        if bytes > maxBytes { return "The message is too long: at most 100,000 bytes (it has \(ChatFormat.grouped(bytes)))." }
        if text.contains("\u{0}") { return "The message contains a NUL character." }
        return nil
    }
}

/// What the composer offers, from the conversation's state and the person's role.
public struct ChatSendOptions: Hashable, Sendable {
    /// Send (queues behind a running turn).
    public let canSend: Bool
    /// Steer: stop the running turn and send this next (only while a turn runs).
    public let showsSteer: Bool
    /// Interrupt the running turn (only while a turn runs).
    public let showsInterrupt: Bool
    /// Shown above the box while a turn runs.
    public let busyHint: String?
    /// Shown instead of the composer when it cannot be used (a viewer, a deleted conversation).
    public let unavailableReason: String?

    public init(canChat: Bool, isBusy: Bool, isDeleted: Bool, isEnded: Bool = false) {
        if !canChat {
            unavailableReason = "You can read this conversation; sending messages needs an operator key."
        } else if isDeleted {
            unavailableReason = "This conversation was deleted."
        } else if isEnded {
            unavailableReason = "This conversation has ended."
        } else {
            unavailableReason = nil
        }
        let usable = unavailableReason == nil
        canSend = usable
        showsSteer = usable && isBusy
        showsInterrupt = usable && isBusy
        busyHint = usable && isBusy ? "Claude is busy: Send queues your message; Steer stops the turn and sends it now." : nil
    }

    public var sendLabel: String { "Send" }
    public var steerLabel: String { "Steer" }
    public var steerAccessibilityLabel: String { "Steer: stop the running turn and send this next" }
    public var interruptLabel: String { "Interrupt" }
}

/// A message sent but not started yet: shown below the transcript until its turn begins.
public struct ChatQueuedMessage: Hashable, Sendable, Identifiable {
    public let id: String
    public let text: String
    public let mode: SendMode
    /// 0 when it was sent at once; else its place in the queue (1 = next).
    public let position: Int

    public init(turnID: String, text: String, mode: SendMode, position: Int) {
        id = turnID
        self.text = text
        self.mode = mode
        self.position = position
    }

    /// `queued #2`, `steering…` or `sending…`.
    public var label: String { position > 0 ? "queued #\(position)" : mode == .steer ? "steering…" : "sending…" }

    /// `You, queued #1: Then update the changelog.`
    public var accessibilityLabel: String { "You, \(label): \(text)" }

    /// The note under the composer after sending it, nil when there is nothing to say.
    public var note: String? {
        if position > 0 { return "Queued as #\(position): it is sent when the running turn ends." }
        if mode == .steer { return "Steering: the running turn stops and your message goes next." }
        return nil
    }
}
