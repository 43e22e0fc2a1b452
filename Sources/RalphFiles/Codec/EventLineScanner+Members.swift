import RalphAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The top-level members the fold looks at, and the facts they give (``LineFacts/Flags``).
extension EventLineScanner {
    /// Raw bytes of a string's contents (between its quotes) or of a number.
    struct Span {
        var start: UnsafePointer<UInt8>
        var end: UnsafePointer<UInt8>
        /// A string with escapes, or a number that is not a short plain integer: judged by ``JSONParser``.
        var escaped: Bool

        var count: Int { end - start }

        /// Whether the raw bytes are exactly `text` (ASCII).
        @inline(__always)
        func equals(_ text: StaticString) -> Bool {
            count == text.utf8CodeUnitCount && memcmp(start, text.utf8Start, count) == 0
        }

        /// The value as the parser makes it (a string's span is re-read with its quotes).
        func parsed(isString: Bool) -> JSONValue? {
            let from = isString ? start - 1 : start
            let to = isString ? end + 1 : end
            return try? JSONParser.parse(UnsafeBufferPointer(start: from, count: to - from))
        }
    }

    enum Value {
        case string(Span)
        case number(Span)
        case null
        /// `true`, `false`, an object or an array.
        case other
    }
}

/// Noting the members the fold looks at, and the facts they give.
extension EventLineScanner.Cursor {
    typealias Span = EventLineScanner.Span
    typealias Value = EventLineScanner.Value

    /// Notes a member when its key is one of the names (the last one of a name wins, as in ``JSONObject``).
    @inline(__always)
    mutating func note(key: Span, value: Value) {
        // Raw bytes equal to an ASCII name decode to it; raw bytes that differ can only decode to it through escapes
        // (no other Unicode text is canonically equivalent to these lowercase names, so String's `==` agrees).
        if key.escaped { return noteEscaped(key: key, value: value) }
        switch key.count {
        case 2: if key.equals("ts") { ts = value }
        case 3: if key.equals("hat") { hat = value }
        case 5: if key.equals("topic") { topic = value }
        case 7: if key.equals("payload") { payload = value }
        case 9:
            if key.equals("iteration") {
                iteration = value
            } else if key.equals("triggered") {
                triggered = value
            }
        default: break
        }
    }

    private mutating func noteEscaped(key: Span, value: Value) {
        guard case .string(let name)? = key.parsed(isString: true) else { return }
        switch name {
        case "ts": ts = value
        case "hat": hat = value
        case "topic": topic = value
        case "payload": payload = value
        case "iteration": iteration = value
        case "triggered": triggered = value
        default: break
        }
    }

    /// The line's facts, given that it is one valid object. (Inlined: called, it would be handed a copy of the whole
    /// cursor for every line, which cost a tenth of the scan.)
    @inline(__always)
    func facts() -> LineFacts {
        // An event has a non-empty string topic (raw bytes that are not empty never decode to an empty string).
        guard case .string(let topicSpan)? = topic, topicSpan.count > 0 else { return .malformed }
        var flags: LineFacts.Flags = []
        if case .string? = ts { flags.insert(.ts) }
        switch payload {
        case nil, .null?: break
        default: flags.insert(.payload)
        }
        switch Self.name(topicSpan) {
        case .terminate?: flags.insert(.terminate)
        case .interact?: flags.insert(.interact)
        case .response?: flags.insert(.response)
        default: break
        }
        if case .string(let hatSpan)? = hat, Self.hasIntValue(iteration) {
            flags.insert(.record)
            if case .string(let t)? = triggered, t.count > 0 {
                flags.insert(.namesHat)
            } else {
                switch Self.name(hatSpan) {
                case .loop?, .empty?: break
                default: flags.insert(.namesHat)
                }
            }
        }
        return LineFacts(kind: .event, flags: flags)
    }

    /// The few texts a topic or a hat is compared with.
    enum Name: CaseIterable {
        case terminate, interact, response, loop, empty

        var text: String {
            switch self {
            case .terminate: "loop.terminate"
            case .interact: "human.interact"
            case .response: "human.response"
            case .loop: "loop"
            case .empty: ""
            }
        }
    }

    /// Which of the compared texts a string is, if any.
    static func name(_ span: Span) -> Name? {
        if span.escaped {
            guard case .string(let s)? = span.parsed(isString: true) else { return nil }
            return Name.allCases.first { $0.text == s }
        }
        switch span.count {
        case 0: return .empty
        case 4: return span.equals("loop") ? .loop : nil
        case 14:
            if span.equals("loop.terminate") { return .terminate }
            if span.equals("human.interact") { return .interact }
            return span.equals("human.response") ? .response : nil
        default: return nil
        }
    }

    /// Whether the value's ``JSONValue/intValue`` is not nil: a short plain integer or a short decimal string
    /// without escapes are judged from their bytes, anything else by the parser.
    static func hasIntValue(_ value: Value?) -> Bool {
        switch value {
        case .number(let span)?:
            return span.escaped ? span.parsed(isString: false)?.intValue != nil : true
        case .string(let span)?:
            if !span.escaped, isShortDecimal(span) { return true }
            return span.parsed(isString: true)?.intValue != nil
        default:
            return false
        }
    }

    /// An optional sign and 1 to 18 ASCII digits: what `Int(String)` takes without a doubt.
    static func isShortDecimal(_ span: Span) -> Bool {
        var p = span.start
        if p < span.end, p.pointee == UInt8(ascii: "+") || p.pointee == UInt8(ascii: "-") { p += 1 }
        let digits = span.end - p
        guard digits >= 1, digits <= 18 else { return false }
        while p < span.end {
            guard isDigit(p.pointee) else { return false }
            p += 1
        }
        return true
    }
}
