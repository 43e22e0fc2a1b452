import Foundation
import RalphAPI

/// The formatting the conversation screens need: relative times, money, token counts, durations, byte counts, paths and
/// JSON for people.
///
/// Kept in the chat folder for now (named so it does not clash with the shared `Formatting/` being written at the same
/// time); the two can be merged. Every function is pure: the current time is passed in.
public enum ChatFormat {
    /// `12s ago`, `5m ago`, `3h ago`, `2d ago`; `—` for a time that cannot be read. A time in the future counts as now.
    public static func relativeTime(_ timestamp: String?, now: Date) -> String {
        guard let timestamp, let date = Timestamp.parse(timestamp) else { return "—" }
        let seconds = max(0, Int(now.timeIntervalSince(date).rounded()))
        if seconds < 60 { return "\(seconds)s ago" }
        if seconds < 3600 { return "\(seconds / 60)m ago" }
        if seconds < 86_400 { return "\(seconds / 3600)h ago" }
        return "\(seconds / 86_400)d ago"
    }

    /// `asked just now` within 10 seconds, else `asked 5m ago`.
    public static func asked(_ timestamp: String?, now: Date) -> String {
        guard let timestamp, let date = Timestamp.parse(timestamp) else { return "asked just now" }
        return now.timeIntervalSince(date) < 10 ? "asked just now" : "asked " + relativeTime(timestamp, now: now)
    }

    /// `$0.0042` below a cent, else `$1.25`; nil for no amount.
    public static func cost(_ usd: Double?) -> String? {
        guard let usd, usd.isFinite else { return nil }
        return "$" + (usd < 0.01 ? String(format: "%.4f", usd) : String(format: "%.2f", usd))
    }

    /// All tokens of a usage (input, output and both cache counts) as `12,345 tokens`; nil when there are none.
    public static func tokens(_ usage: TokenUsage?) -> String? {
        guard let usage else { return nil }
        let total = usage.inputTokens + usage.outputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens
        return total > 0 ? grouped(total) + (total == 1 ? " token" : " tokens") : nil
    }

    /// `12,345`: thousands separated by commas, whatever the device's locale (the same on every screen and in tests).
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// `42s`, `1m 05s`, `2h 03m`.
    public static func duration(_ seconds: Int) -> String {
        let s = max(seconds, 0)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm %02ds", s / 60, s % 60) }
        return String(format: "%dh %02dm", s / 3600, (s % 3600) / 60)
    }

    /// `4.2 s` from milliseconds.
    public static func seconds(milliseconds: Int) -> String {
        String(format: "%.1f s", Double(milliseconds) / 1000)
    }

    /// The last two parts of a path (`…/app/api`); paths of one or two parts as they are.
    public static func shortPath(_ path: String) -> String {
        let parts = path.split(separator: "/")
        guard parts.count > 2 else { return path }
        return "…/" + parts.suffix(2).joined(separator: "/")
    }

    /// UTF-8 length: what the server's byte limits count.
    public static func byteCount(_ text: String) -> Int { text.utf8.count }

    /// The first non-blank line, trimmed, cut to `limit` characters with `…`.
    public static func firstLine(_ text: String, limit: Int = 140) -> String {
        let line = text.split(separator: "\n", omittingEmptySubsequences: true).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let trimmed = line.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return truncated(trimmed, to: limit)
    }

    /// `text` itself when it has at most `limit` characters, else its first `limit - 1` and `…`.
    public static func truncated(_ text: String, to limit: Int) -> String {
        text.count > limit ? String(text.prefix(max(limit - 1, 0))) + "…" : text
    }

    /// JSON for people: objects and arrays over several lines, two spaces per level, keys in the order they came; a
    /// string value as the string itself.
    public static func prettyJSON(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return Formatting.prettyJSON(value)
    }
}
