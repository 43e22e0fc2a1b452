import RalphAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Classifies a run-file line as ``EventLineDecoder`` would — blank, malformed or an event — without building it: a
/// validating pass over the bytes that allocates nothing, several times faster than decoding. It is what lets the
/// catalog count a run's events exactly before it has folded them (``RunFileScan``).
///
/// The grammar is ``JSONParser``'s, rule for rule: the same whitespace, the same escapes (any other byte, control
/// characters and invalid UTF-8 included, is accepted inside a string, as the parser repairs rather than refuses),
/// numbers as JSON writes them, the literals, and at most ``JSONParser/maxDepth`` nested containers. A line is an event
/// when it is one object whose last `topic` member is a non-empty string. Of the top-level members the fold looks at
/// (`topic`, `ts`, `iteration`, `hat`, `triggered`, `payload`) the last of each name is noted, as
/// ``JSONObject``'s lookup returns the last one; the rare member that needs more than its raw bytes to be judged (a
/// key or a value with escapes, a number that is not a short integer) is handed to ``JSONParser`` itself.
/// Tests compare the two on generated and mutated lines (EventLineScannerTests).
enum EventLineScanner {
    /// Classifies the bytes of one line (without its newline; surrounding whitespace, a trailing CR included, is
    /// ignored as the decoder ignores it).
    static func scan(_ line: UnsafeBufferPointer<UInt8>) -> LineFacts {
        guard var start = line.baseAddress, line.count > 0 else { return .blank }
        var end = start + line.count
        while start < end, EventLineDecoder.isSpace(start.pointee) { start += 1 }
        while end > start, EventLineDecoder.isSpace((end - 1).pointee) { end -= 1 }
        if start == end { return .blank }
        // Anything but an object is malformed, whether it parses or not.
        guard start.pointee == ascii("{") else { return .malformed }
        var cursor = Cursor(at: start, end: end)
        guard cursor.topObject() else { return .malformed }
        return cursor.facts()
    }

    /// Classifies a line given as bytes.
    static func scan(_ line: [UInt8]) -> LineFacts {
        line.withUnsafeBufferPointer { scan($0) }
    }

    @inline(__always)
    static func ascii(_ c: Unicode.Scalar) -> UInt8 { UInt8(ascii: c) }
}

extension EventLineScanner {
    /// The validating pass over one trimmed line, and the last member of each name the fold looks at (the last one of
    /// a name wins, as in ``JSONObject``).
    struct Cursor {
        var p: UnsafePointer<UInt8>
        let end: UnsafePointer<UInt8>
        var topic: Value?
        var ts: Value?
        var iteration: Value?
        var hat: Value?
        var triggered: Value?
        var payload: Value?

        init(at start: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) {
            p = start
            self.end = end
        }

        /// The line's one object (the cursor is on its `{`), noting the members the fold looks at; true if the whole
        /// line is that object.
        mutating func topObject() -> Bool {
            p += 1
            skipSpace()
            if p < end, p.pointee == ascii("}") {
                p += 1
                return p == end
            }
            while true {
                skipSpace()
                guard p < end, p.pointee == ascii("\"") else { return false }
                let keyStart = p + 1
                guard let key = skipString() else { return false }
                skipSpace()
                guard p < end, p.pointee == ascii(":") else { return false }
                p += 1
                skipSpace()
                guard let value = topValue() else { return false }
                note(key: Span(start: keyStart, end: key.close, escaped: key.escaped), value: value)
                skipSpace()
                guard p < end else { return false }
                if p.pointee == ascii(",") {
                    p += 1
                    continue
                }
                if p.pointee == ascii("}") {
                    p += 1
                    return p == end
                }
                return false
            }
        }

        /// A member's value in the line's object (depth 1), as much as the facts need of it.
        mutating func topValue() -> Value? {
            guard p < end else { return nil }
            let start = p
            switch p.pointee {
            case ascii("\""):
                guard let string = skipString() else { return nil }
                return .string(Span(start: start + 1, end: string.close, escaped: string.escaped))
            case ascii("-"), ascii("0")...ascii("9"):
                guard let plain = skipNumber() else { return nil }
                return .number(Span(start: start, end: p, escaped: !plain))
            case ascii("n"):
                return literal("null") ? .null : nil
            default:
                return skipValue(depth: 1) ? .other : nil
            }
        }

        @inline(__always)
        mutating func skipSpace() {
            while p < end {
                let b = p.pointee
                guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { return }
                p += 1
            }
        }

        /// Any value inside a container of nesting `depth` (the parser's `parseValue(depth:)`).
        mutating func skipValue(depth: Int) -> Bool {
            guard p < end else { return false }
            switch p.pointee {
            case ascii("\""): return skipString() != nil
            case ascii("{"): return skipObject(depth: depth + 1)
            case ascii("["): return skipArray(depth: depth + 1)
            case ascii("t"): return literal("true")
            case ascii("f"): return literal("false")
            case ascii("n"): return literal("null")
            case ascii("-"), ascii("0")...ascii("9"): return skipNumber() != nil
            default: return false
            }
        }

        mutating func skipObject(depth: Int) -> Bool {
            guard depth <= JSONParser.maxDepth else { return false }
            p += 1
            skipSpace()
            if p < end, p.pointee == ascii("}") {
                p += 1
                return true
            }
            while true {
                skipSpace()
                guard p < end, p.pointee == ascii("\""), skipString() != nil else { return false }
                skipSpace()
                guard p < end, p.pointee == ascii(":") else { return false }
                p += 1
                skipSpace()
                guard skipValue(depth: depth) else { return false }
                skipSpace()
                guard p < end else { return false }
                if p.pointee == ascii(",") {
                    p += 1
                    continue
                }
                if p.pointee == ascii("}") {
                    p += 1
                    return true
                }
                return false
            }
        }

        mutating func skipArray(depth: Int) -> Bool {
            guard depth <= JSONParser.maxDepth else { return false }
            p += 1
            skipSpace()
            if p < end, p.pointee == ascii("]") {
                p += 1
                return true
            }
            while true {
                skipSpace()
                guard skipValue(depth: depth) else { return false }
                skipSpace()
                guard p < end else { return false }
                if p.pointee == ascii(",") {
                    p += 1
                    continue
                }
                if p.pointee == ascii("]") {
                    p += 1
                    return true
                }
                return false
            }
        }

        /// A string (the cursor is on its opening quote), left just past its closing quote: where that quote is, and
        /// whether there were escapes. Only `"` and `\` matter inside, so they are looked for eight bytes at a time.
        @inline(__always)
        mutating func skipString() -> (close: UnsafePointer<UInt8>, escaped: Bool)? {
            p += 1
            var escaped = false
            while true {
                while end - p >= 8 {
                    let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
                    let special = Self.zeroBytes(word ^ 0x2222_2222_2222_2222) | Self.zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
                    if special != 0 {
                        // The lowest flagged byte is exact (the trick's false positives only come after a true one).
                        p += special.trailingZeroBitCount >> 3
                        break
                    }
                    p += 8
                }
                while p < end, p.pointee != ascii("\""), p.pointee != ascii("\\") { p += 1 }
                guard p < end else { return nil }
                if p.pointee == ascii("\"") {
                    let close = p
                    p += 1
                    return (close, escaped)
                }
                escaped = true
                guard end - p >= 2 else { return nil }
                switch p[1] {
                case ascii("\""), ascii("\\"), ascii("/"), ascii("b"), ascii("f"), ascii("n"), ascii("r"), ascii("t"):
                    p += 2
                case ascii("u"):
                    // Four hex digits, always: the parser's surrogate handling never accepts or refuses anything more.
                    guard end - p >= 6, Self.isHex(p[2]), Self.isHex(p[3]), Self.isHex(p[4]), Self.isHex(p[5]) else { return nil }
                    p += 6
                default:
                    return nil
                }
            }
        }

        /// The high bit of each byte of `x` that is zero (exact up to the first one).
        @inline(__always)
        static func zeroBytes(_ x: UInt64) -> UInt64 {
            (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
        }

        @inline(__always)
        static func isHex(_ c: UInt8) -> Bool {
            let lower = c | 0x20
            return (c &- ascii("0")) < 10 || (lower &- ascii("a")) < 6
        }

        @inline(__always)
        static func isDigit(_ c: UInt8) -> Bool { (c &- ascii("0")) < 10 }

        /// A number as JSON writes it (the cursor is on its first byte). Returns whether it is a plain integer of at
        /// most 18 digits (which the parser makes an `.int` without a doubt); nil if it is not a number. Any number the
        /// grammar accepts the parser accepts (`Double` overflows to infinity, never fails).
        @inline(__always)
        mutating func skipNumber() -> Bool? {
            if p.pointee == ascii("-") { p += 1 }
            let digits = p
            guard p < end, Self.isDigit(p.pointee) else { return nil }
            if p.pointee == ascii("0") {
                p += 1
            } else {
                while p < end, Self.isDigit(p.pointee) { p += 1 }
            }
            var plain = p - digits <= 18
            if p < end, p.pointee == ascii(".") {
                plain = false
                p += 1
                guard p < end, Self.isDigit(p.pointee) else { return nil }
                while p < end, Self.isDigit(p.pointee) { p += 1 }
            }
            if p < end, p.pointee == ascii("e") || p.pointee == ascii("E") {
                plain = false
                p += 1
                if p < end, p.pointee == ascii("+") || p.pointee == ascii("-") { p += 1 }
                guard p < end, Self.isDigit(p.pointee) else { return nil }
                while p < end, Self.isDigit(p.pointee) { p += 1 }
            }
            return plain
        }

        @inline(__always)
        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard end - p >= count, memcmp(p, word.utf8Start, count) == 0 else { return false }
            p += count
            return true
        }
    }
}
