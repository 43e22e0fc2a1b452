import Foundation
import RalphAPI

/// How the app writes ids, durations, times, token counts and costs: one place every screen calls, so a session shows
/// "5m 3s" and "12s ago" the same way in the list, the detail, the export and the chat.
///
/// Every function is pure: the current time, the time zone and the locale are parameters (defaulting to the device's),
/// so tests give fixed ones.
public enum Formatting {
    /// Shown where a value is unknown.
    public static let missing = "—"

    // MARK: - Ids

    /// The first 8 characters of an id: what the list's icon and the detail's title show.
    public static func id8(_ id: String) -> String { String(id.prefix(8)) }

    // MARK: - Durations

    /// `42s`, `5m 3s`, `2h 5m`, `3d 4h`; ``missing`` for nil, negative or non-finite values. Rounded to the second.
    public static func duration(seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return missing }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m \(s % 60)s" }
        if s < 86_400 { return "\(s / 3600)h \(s % 3600 / 60)m" }
        return "\(s / 86_400)d \(s % 86_400 / 3600)h"
    }

    /// ``duration(seconds:)`` for whole seconds.
    public static func duration(seconds: Int?) -> String { duration(seconds: seconds.map(Double.init)) }

    // MARK: - Times

    /// `12s ago`, `5m ago`, `3h ago`, `2d ago` from an RFC 3339 timestamp; ``missing`` when it does not parse. A time
    /// slightly ahead of `now` (another machine's clock) reads `0s ago`.
    public static func relativeTime(_ timestamp: String?, now: Date = Date()) -> String {
        guard let date = timestamp.flatMap(Timestamp.parse) else { return missing }
        return relativeTime(date, now: now)
    }

    /// ``relativeTime(_:now:)`` for a date.
    public static func relativeTime(_ date: Date, now: Date = Date()) -> String {
        let secs = max(0, Int((now.timeIntervalSince(date)).rounded()))
        if secs < 60 { return "\(secs)s ago" }
        if secs < 3600 { return "\(secs / 60)m ago" }
        if secs < 86_400 { return "\(secs / 3600)h ago" }
        return "\(secs / 86_400)d ago"
    }

    /// How long until a deadline: `in 4m 3s`, or `now` once it has passed; ``missing`` when it does not parse.
    public static func timeUntil(_ timestamp: String?, now: Date = Date()) -> String {
        guard let date = timestamp.flatMap(Timestamp.parse) else { return missing }
        let secs = Int(date.timeIntervalSince(now).rounded())
        return secs <= 0 ? "now" : "in " + duration(seconds: secs)
    }

    /// `14:02:03` (24-hour clock) in `timeZone`; ``missing`` when the timestamp does not parse.
    public static func clockTime(_ timestamp: String?, timeZone: TimeZone = .current) -> String {
        guard let date = timestamp.flatMap(Timestamp.parse) else { return missing }
        let c = calendar(timeZone).dateComponents([.hour, .minute, .second], from: date)
        return pad2(c.hour ?? 0) + ":" + pad2(c.minute ?? 0) + ":" + pad2(c.second ?? 0)
    }

    /// `Feb 5, 08:09` in `timeZone`, with the year when it is not `now`'s year (`Feb 5 2025, 08:09`).
    public static func dateTime(_ timestamp: String?, now: Date = Date(), timeZone: TimeZone = .current) -> String {
        guard let date = timestamp.flatMap(Timestamp.parse) else { return missing }
        let cal = calendar(timeZone)
        let c = cal.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let month = monthNames[max(0, min(11, (c.month ?? 1) - 1))]
        let year = (c.year ?? 0) == cal.component(.year, from: now) ? "" : " \(c.year ?? 0)"
        return "\(month) \(c.day ?? 0)\(year), " + pad2(c.hour ?? 0) + ":" + pad2(c.minute ?? 0)
    }

    /// A compact UTC stamp for file names: `20260205T080913Z`.
    public static func fileStamp(_ date: Date) -> String {
        let c = calendar(TimeZone(identifier: "UTC") ?? .current).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(c.year ?? 0) + pad2(c.month ?? 0) + pad2(c.day ?? 0) + "T" + pad2(c.hour ?? 0) + pad2(c.minute ?? 0) + pad2(c.second ?? 0) + "Z"
    }

    // MARK: - Counts

    /// A whole number with thousands separators: `12,345` (`,` always, so exports read the same everywhere).
    public static func number(_ value: Int?) -> String {
        guard let value else { return missing }
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// A token count as short as a phone row needs: `950`, `1.2k`, `12k`, `3.4M`; ``missing`` for nil.
    public static func tokens(_ value: Int?) -> String {
        guard let value else { return missing }
        let magnitude = Double(value.magnitude)
        let sign = value < 0 ? "-" : ""
        func short(_ scaled: Double, _ unit: String) -> String {
            // One decimal below 10 (1.2k), none above (12k); a trailing .0 is dropped (1k, not 1.0k).
            let rounded = scaled < 9.95 ? (scaled * 10).rounded() / 10 : scaled.rounded()
            let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
            return sign + text + unit
        }
        if magnitude < 1000 { return sign + String(Int(magnitude)) }
        if magnitude < 999_950 { return short(magnitude / 1000, "k") }
        if magnitude < 999_950_000 { return short(magnitude / 1_000_000, "M") }
        return short(magnitude / 1_000_000_000, "B")
    }

    /// A cost in US dollars: `$0.05`, `$12.30`; below a cent with four decimals (`$0.0042`); ``missing`` for nil.
    public static func cost(_ usd: Double?) -> String {
        guard let usd, usd.isFinite else { return missing }
        if usd != 0, abs(usd) < 0.01 { return String(format: "$%.4f", usd) }
        return String(format: "$%.2f", usd)
    }

    /// `3 / 10`, or `3` when the total is unknown.
    public static func iteration(_ current: Int, of total: Int?) -> String {
        guard let total, total > 0 else { return String(current) }
        return "\(current) / \(total)"
    }

    /// `1 event`, `2 events`: a count with its noun (`plural` defaults to the noun + "s").
    public static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String {
        number(value) + " " + (value == 1 ? noun : plural ?? noun + "s")
    }

    // MARK: - Helpers

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    static func pad2(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
}
