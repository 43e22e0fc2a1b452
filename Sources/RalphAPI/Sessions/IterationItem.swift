/// One iteration of a run: `GET /api/sessions/{id}/iterations` item.
public struct IterationItem: Codable, Hashable, Sendable {
    public var number: Int
    public var hat: String?
    public var startedAt: String
    /// Seconds from the iteration's start (the previous iteration's last record) to its own last record.
    public var durationSecs: Int?
    /// Events recorded during the iteration.
    public var eventCount: Int

    public init(number: Int, hat: String?, startedAt: String, durationSecs: Int?, eventCount: Int) {
        self.number = number
        self.hat = hat
        self.startedAt = startedAt
        self.durationSecs = durationSecs
        self.eventCount = eventCount
    }

    enum CodingKeys: String, CodingKey {
        case number, hat
        case startedAt = "started_at"
        case durationSecs = "duration_secs"
        case eventCount = "event_count"
    }
}
