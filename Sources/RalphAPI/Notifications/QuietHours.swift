/// A daily window in which a device is told silently (no sound, no vibration, passive on iOS): nothing is dropped.
public struct QuietHours: Codable, Hashable, Sendable {
    /// `HH:MM`, 24-hour, in ``timeZone``.
    public var start: String
    /// `HH:MM`; earlier than ``start`` means the window spans midnight.
    public var end: String
    /// An IANA time zone name (`Europe/Paris`); UTC when absent.
    public var timeZone: String?

    public init(start: String, end: String, timeZone: String? = nil) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
    }

    enum CodingKeys: String, CodingKey {
        case start, end
        case timeZone = "time_zone"
    }
}
