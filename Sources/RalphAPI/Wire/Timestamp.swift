import Foundation

/// RFC 3339 timestamps as the contract uses them.
///
/// ralph writes nanosecond precision with `+00:00`; other writers use `Z` and milliseconds or no fraction at all.
/// ``parse(_:)`` accepts every RFC 3339 form; ``format(_:)`` writes the contract's canonical form,
/// UTC with milliseconds (`2026-02-05T08:09:13.890Z`), which every client parser accepts.
public enum Timestamp {
    /// Parses an RFC 3339 date-time (`T`, `t` or a space between date and time; any number of fractional digits;
    /// `Z`, `z`, `±hh:mm` or `±hhmm`). Returns nil for anything else.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Date? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2) else { return nil }
        guard i < b.count, b[i] == 84 || b[i] == 116 || b[i] == 32 else { return nil }
        i += 1
        guard let hour = digits(2), expect(58), let minute = digits(2), expect(58), let second = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour < 24, minute < 60, second <= 60 else {
            return nil
        }
        var fraction = 0.0
        if i < b.count, b[i] == 46 {
            i += 1
            // Exact decimal: up to 15 significant digits as an integer, divided once.
            var digitsValue = 0
            var digitsCount = 0
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digitsCount < 15 {
                    digitsValue = digitsValue * 10 + Int(b[i] - 48)
                    digitsCount += 1
                }
                i += 1
            }
            guard i > start else { return nil }
            var scale = 1.0
            for _ in 0..<digitsCount { scale *= 10 }
            fraction = Double(digitsValue) / scale
        }
        guard i < b.count else { return nil }
        var offsetSeconds = 0
        switch b[i] {
        case 90, 122:  // Z z
            i += 1
        case 43, 45:  // + -
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = expect(58)
            guard let om = digits(2), oh < 24, om < 60 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// Formats a date as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, milliseconds, truncated).
    public static func format(_ date: Date) -> String {
        // Round to the microsecond first so binary noise (x.0019999…) does not lose a millisecond, then truncate.
        let micros = Int((date.timeIntervalSince1970 * 1_000_000).rounded())
        let totalMillis = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000)
        let millis = ((totalMillis % 1000) + 1000) % 1000
        let totalSeconds = (totalMillis - millis) / 1000
        var days = totalSeconds / 86_400
        var secondsOfDay = totalSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = civilFromDays(days)
        guard (0...9999).contains(y) else {
            return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(secondsOfDay / 3600, 2) + ":"
                + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2) + "." + pad(millis, 3) + "Z"
        }
        // The common case, written straight into one 24-byte string (folding a long run formats many of these).
        return String(unsafeUninitializedCapacity: 24) { b in
            func put(_ value: Int, _ width: Int, at start: Int) {
                var v = value
                for k in stride(from: start + width - 1, through: start, by: -1) {
                    b[k] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                }
            }
            put(y, 4, at: 0)
            b[4] = 45
            put(m, 2, at: 5)
            b[7] = 45
            put(d, 2, at: 8)
            b[10] = 84
            put(secondsOfDay / 3600, 2, at: 11)
            b[13] = 58
            put(secondsOfDay / 60 % 60, 2, at: 14)
            b[16] = 58
            put(secondsOfDay % 60, 2, at: 17)
            b[19] = 46
            put(millis, 3, at: 20)
            b[23] = 90
            return 24
        }
    }

    /// Formats a date as ralph does: `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn+00:00` (microsecond precision, the rest zeros).
    public static func formatRalph(_ date: Date) -> String {
        let micros = Int((date.timeIntervalSince1970 * 1_000_000).rounded())
        let secondsInt = micros >= 0 ? micros / 1_000_000 : -((-micros + 999_999) / 1_000_000)
        let seconds = Double(secondsInt)
        let nanos = (micros - secondsInt * 1_000_000) * 1000
        let base = format(Date(timeIntervalSince1970: seconds))
        return String(base.prefix(19)) + "." + pad(max(0, min(nanos, 999_999_999)), 9) + "+00:00"
    }

    /// The current time in the contract's format.
    public static func now() -> String { format(Date()) }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's civil-date algorithms (proleptic Gregorian, days relative to 1970-01-01).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
