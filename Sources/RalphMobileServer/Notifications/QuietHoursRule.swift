import Foundation
import RalphAPI

extension QuietHours {
    /// Minutes since midnight of `HH:MM`, or nil.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes),
            parts[0].count == 2, parts[1].count == 2
        else { return nil }
        return hours * 60 + minutes
    }

    /// Why these quiet hours cannot be used, or nil when they are valid.
    var problem: String? {
        if Self.minutes(start) == nil { return "quiet_hours.start must be HH:MM (24-hour), not '\(start.prefix(20))'" }
        if Self.minutes(end) == nil { return "quiet_hours.end must be HH:MM (24-hour), not '\(end.prefix(20))'" }
        if let zone = timeZone, TimeZone(identifier: zone) == nil { return "quiet_hours.time_zone '\(zone.prefix(60))' is not a known time zone" }
        return nil
    }

    /// Whether `date` falls inside the window (start inclusive, end exclusive; a window across midnight when end < start).
    func contains(_ date: Date) -> Bool {
        guard let start = Self.minutes(start), let end = Self.minutes(end), start != end else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return start < end ? (now >= start && now < end) : (now >= start || now < end)
    }
}
