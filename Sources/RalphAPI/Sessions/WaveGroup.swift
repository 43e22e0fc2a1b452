/// One agent wave of a run (ralph ≥ 2.9): the lines that carry the same `wave_id`, grouped.
///
/// A wave runs `total` workers of a hat in parallel within one iteration; each worker's lines carry its
/// `wave_index` (0-based as ralph writes it) and the wave's `wave_total`. ``done`` counts the distinct indices seen,
/// so "2 of 3" reads straight from the group.
public struct WaveGroup: Codable, Hashable, Sendable {
    /// `wave_id` as written.
    public var id: String
    /// `wave_total` of its lines (the largest seen, when they disagree).
    public var total: Int
    /// Distinct `wave_index` values seen.
    public var done: Int
    /// The worker indices seen, ascending.
    public var indices: [Int]
    /// The hats of its lines, in first-seen order.
    public var hats: [String]
    /// The iteration of its first line.
    public var iteration: Int?
    /// Lines of the wave.
    public var events: Int
    public var firstEventId: Int
    public var lastEventId: Int
    /// `ts` of its first and latest lines (normalised).
    public var startedAt: String?
    public var lastAt: String?

    public init(
        id: String, total: Int, done: Int, indices: [Int], hats: [String], iteration: Int?, events: Int, firstEventId: Int, lastEventId: Int,
        startedAt: String?, lastAt: String?
    ) {
        self.id = id
        self.total = total
        self.done = done
        self.indices = indices
        self.hats = hats
        self.iteration = iteration
        self.events = events
        self.firstEventId = firstEventId
        self.lastEventId = lastEventId
        self.startedAt = startedAt
        self.lastAt = lastAt
    }

    enum CodingKeys: String, CodingKey {
        case id, total, done, indices, hats, iteration, events
        case firstEventId = "first_event_id"
        case lastEventId = "last_event_id"
        case startedAt = "started_at"
        case lastAt = "last_at"
    }

    /// Whether a worker of every index was seen.
    public var isComplete: Bool { total > 0 && done >= total }
}
