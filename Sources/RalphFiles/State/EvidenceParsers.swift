import Foundation
import RalphAPI

/// Reads backpressure evidence the way ralph does: `tests: pass`, `lint: pass`, `typecheck: pass` lines in a
/// `build.done` payload (ANSI colour codes ignored), plus the other checks newer ralph versions ask for.
public enum BackpressureEvidence {
    /// Check names recognised in payloads.
    public static let knownChecks = ["tests", "lint", "typecheck", "audit", "coverage", "complexity", "duplication", "performance", "mutants", "specs"]

    /// The checks named in `payload`, in the order they appear (the last mention of a check wins).
    public static func checks(in payload: String) -> [BackpressureCheck] {
        let clean = stripANSI(payload)
        var found: [String: BackpressureCheck] = [:]
        var order: [String] = []
        for rawLine in clean.split(whereSeparator: { $0.isNewline || $0 == "," || $0 == ";" }) {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            while let first = line.first, "-*•✓✗✅❌".contains(first) { line = line.dropFirst().trimmingCharacters(in: .whitespaces) }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            guard knownChecks.contains(name) else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let word = value.split(separator: " ").first.map { String($0).lowercased() } ?? ""
            guard !word.isEmpty else { continue }
            let passed = word.hasPrefix("pass") || word == "ok" || word == "green" || word == "✓" || word == "✅"
            if found[name] == nil { order.append(name) }
            found[name] = BackpressureCheck(name: name, result: word, passed: passed)
        }
        return order.compactMap { found[$0] }
    }

    static func stripANSI(_ s: String) -> String {
        guard s.contains("\u{1B}") else { return s }
        var out = ""
        var iterator = s.unicodeScalars.makeIterator()
        while let c = iterator.next() {
            guard c == "\u{1B}" else {
                out.unicodeScalars.append(c)
                continue
            }
            guard let next = iterator.next() else { break }
            if next == "[" {
                // CSI: parameters until a final byte in @…~
                while let p = iterator.next(), !(p.value >= 0x40 && p.value <= 0x7E) {}
            }
        }
        return out
    }
}

/// Reads token usage that agents report (`usage.input_tokens`, `usage.output_tokens`, cache counters,
/// `total_cost_usd`/`cost_usd`), whether on the event itself or inside its payload.
public enum TokenUsage {
    public struct Report: Sendable, Equatable {
        public var input = 0
        public var output = 0
        public var cacheRead = 0
        public var cacheCreation = 0
        public var costUsd: Double?
    }

    /// The usage reported by an event, if any.
    public static func report(in event: RalphEvent) -> Report? {
        if let r = report(in: event.fields) { return r }
        switch event.payload {
        case .object(let o)?:
            return report(in: o)
        case .string(let s)? where s.utf8.first == UInt8(ascii: "{") && contains(s, "tokens"):
            if case .object(let o)? = try? JSONParser.parse(s) { return report(in: o) }
            return nil
        default:
            return nil
        }
    }

    /// Byte search (Foundation's `contains` is far slower, and payloads are folded by the million).
    static func contains(_ text: String, _ needle: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { hay in
            needle.withUTF8Buffer { pin in
                guard pin.count > 0, hay.count >= pin.count else { return pin.count == 0 }
                let first = pin[0]
                var i = 0
                let last = hay.count - pin.count
                while i <= last {
                    if hay[i] == first {
                        var k = 1
                        while k < pin.count, hay[i + k] == pin[k] { k += 1 }
                        if k == pin.count { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    static func report(in object: JSONObject) -> Report? {
        var report = Report()
        var any = false
        if case .object(let usage)? = object["usage"] {
            if let v = usage["input_tokens"]?.intValue { report.input = v; any = true }
            if let v = usage["output_tokens"]?.intValue { report.output = v; any = true }
            if let v = usage["cache_read_input_tokens"]?.intValue { report.cacheRead = v; any = true }
            if let v = usage["cache_creation_input_tokens"]?.intValue { report.cacheCreation = v; any = true }
        }
        if let cost = object["total_cost_usd"]?.doubleValue ?? object["cost_usd"]?.doubleValue {
            report.costUsd = cost
            any = true
        }
        return any ? report : nil
    }
}
