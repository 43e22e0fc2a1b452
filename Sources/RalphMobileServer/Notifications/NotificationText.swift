/// Wording helpers shared by the notification rules.
enum NotificationText {
    /// At most `limit` characters on one line (a lock screen shows a few lines; a Web Push message holds 4 KB).
    static func clip(_ text: String, limit: Int = 240) -> String {
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return oneLine.count <= limit ? oneLine : String(oneLine.prefix(limit - 1)) + "…"
    }

    /// `45 s`, `12 min`, `2 h 5 min`.
    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        let minutes = (seconds % 3600) / 60
        return minutes == 0 ? "\(seconds / 3600) h" : "\(seconds / 3600) h \(minutes) min"
    }
}
