/// What one line of a run file is, and the few facts about it the session list needs, found by
/// ``EventLineScanner`` without building the event.
///
/// Every fact is exactly what ``EventLineDecoder`` and the fold (``RunState``) would conclude from the same bytes; the
/// decoder stays the one that builds events, the scanner only says which lines are worth building.
struct LineFacts: Equatable, Sendable {
    enum Kind: UInt8, Sendable {
        /// ``DecodedLine/blank``.
        case blank
        /// ``DecodedLine/malformed(reason:)``.
        case malformed
        /// ``DecodedLine/event(_:)``.
        case event
    }

    /// Facts about an event (always empty for other lines), each one named after what the decoded event would say.
    struct Flags: OptionSet, Sendable, Hashable {
        let rawValue: UInt8
        init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `event.ts != nil`: the last `ts` member is a string.
        static let ts = Flags(rawValue: 1 << 0)
        /// `event.isOrchestratorRecord`: the last `iteration` has an ``JSONValue/intValue`` and the last `hat` is a string.
        static let record = Flags(rawValue: 1 << 1)
        /// A record that names the hat at work next: `triggered` is a non-empty string, or `hat` is neither `loop` nor empty.
        static let namesHat = Flags(rawValue: 1 << 2)
        /// `event.topic == "loop.terminate"`.
        static let terminate = Flags(rawValue: 1 << 3)
        /// `event.topic == "human.interact"`.
        static let interact = Flags(rawValue: 1 << 4)
        /// `event.topic == "human.response"`.
        static let response = Flags(rawValue: 1 << 5)
        /// `event.payloadText != nil`: the last `payload` member is there and not `null`.
        static let payload = Flags(rawValue: 1 << 6)
    }

    var kind: Kind
    var flags: Flags = []

    static let blank = LineFacts(kind: .blank)
    static let malformed = LineFacts(kind: .malformed)
}
