/// The latest backpressure evidence of a run.
///
/// `tests`, `lint` and `typecheck` are booleans as the RalphMobile client's `BackpressureStatus` decodes them
/// (`null` when the payload did not mention the check).
public struct Backpressure: Codable, Hashable, Sendable {
    public var tests: Bool?
    public var lint: Bool?
    public var typecheck: Bool?
    public var checks: [BackpressureCheck]
    /// `build.done` or `build.blocked`.
    public var topic: String
    public var at: String?
    public var iteration: Int
    public var eventId: Int
    /// ralph's `blocked_count` on the record, when present.
    public var blockedCount: Int?
    /// How many `build.done` and `build.blocked` events the run has had.
    public var doneCount: Int
    public var blockedEvents: Int

    public init(
        tests: Bool?, lint: Bool?, typecheck: Bool?, checks: [BackpressureCheck], topic: String, at: String?, iteration: Int,
        eventId: Int, blockedCount: Int?, doneCount: Int, blockedEvents: Int
    ) {
        self.tests = tests
        self.lint = lint
        self.typecheck = typecheck
        self.checks = checks
        self.topic = topic
        self.at = at
        self.iteration = iteration
        self.eventId = eventId
        self.blockedCount = blockedCount
        self.doneCount = doneCount
        self.blockedEvents = blockedEvents
    }

    enum CodingKeys: String, CodingKey {
        case tests, lint, typecheck, checks, topic, at, iteration
        case eventId = "event_id"
        case blockedCount = "blocked_count"
        case doneCount = "done_count"
        case blockedEvents = "blocked_events"
    }
}
