/// Everything a session detail screen needs in one call: `GET /api/sessions/{id}`.
public struct SessionDetail: Codable, Hashable, Sendable {
    /// The list/status fields.
    public var session: Session
    public var stopReason: StopReason?
    public var hatFlow: [HatTransition]
    /// Total number of hat changes (``hatFlow`` keeps the latest 200).
    public var hatTransitions: Int
    public var hatUsage: [HatUsage]
    public var iterationStats: IterationStats
    public var backpressure: Backpressure?
    public var tokens: TokenMetrics?
    /// The latest events carrying a `tool` field, newest last (at most 20).
    public var recentToolCalls: [JSONValue]
    /// The latest events as the stream sends them, newest last (at most 20).
    public var recentEvents: [JSONValue]
    public var pendingQuestion: PendingQuestion?
    /// Lines of the run file (ids run from 1 to this).
    public var lineCount: Int
    /// Lines that are not events (invalid JSON, no topic, too long); blank lines are not counted.
    public var malformedLines: Int
    /// `human.guidance` lines and their acknowledgements (ralph ≥ 2.10), oldest first (the latest 50).
    public var guidance: [GuidanceItem]
    /// Agent waves (ralph ≥ 2.9), oldest first (the latest 20).
    public var waves: [WaveGroup]
    /// ralph's latest RObot web-mode check-in, while the run is live.
    public var checkin: RobotCheckin?
    /// What ralph's RPC mode reported, for a run this server started with `ralph run --rpc`; nil otherwise.
    public var rpc: RpcTelemetry?

    public init(
        session: Session, stopReason: StopReason?, hatFlow: [HatTransition], hatTransitions: Int, hatUsage: [HatUsage],
        iterationStats: IterationStats, backpressure: Backpressure?, tokens: TokenMetrics?, recentToolCalls: [JSONValue],
        recentEvents: [JSONValue], pendingQuestion: PendingQuestion?, lineCount: Int, malformedLines: Int, guidance: [GuidanceItem] = [],
        waves: [WaveGroup] = [], checkin: RobotCheckin? = nil, rpc: RpcTelemetry? = nil
    ) {
        self.session = session
        self.stopReason = stopReason
        self.hatFlow = hatFlow
        self.hatTransitions = hatTransitions
        self.hatUsage = hatUsage
        self.iterationStats = iterationStats
        self.backpressure = backpressure
        self.tokens = tokens
        self.recentToolCalls = recentToolCalls
        self.recentEvents = recentEvents
        self.pendingQuestion = pendingQuestion
        self.lineCount = lineCount
        self.malformedLines = malformedLines
        self.guidance = guidance
        self.waves = waves
        self.checkin = checkin
        self.rpc = rpc
    }

    enum CodingKeys: String, CodingKey {
        case backpressure, tokens
        case stopReason = "stop_reason"
        case hatFlow = "hat_flow"
        case hatTransitions = "hat_transitions"
        case hatUsage = "hat_usage"
        case iterationStats = "iteration_stats"
        case recentToolCalls = "recent_tool_calls"
        case recentEvents = "recent_events"
        case pendingQuestion = "pending_question"
        case lineCount = "line_count"
        case malformedLines = "malformed_lines"
        case guidance, waves, checkin, rpc
    }

    // The detail is the session object with more fields: flatten `session` into the top level.
    public init(from decoder: any Decoder) throws {
        session = try Session(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        stopReason = try c.decodeIfPresent(StopReason.self, forKey: .stopReason)
        hatFlow = try c.decode([HatTransition].self, forKey: .hatFlow)
        hatTransitions = try c.decode(Int.self, forKey: .hatTransitions)
        hatUsage = try c.decode([HatUsage].self, forKey: .hatUsage)
        iterationStats = try c.decode(IterationStats.self, forKey: .iterationStats)
        backpressure = try c.decodeIfPresent(Backpressure.self, forKey: .backpressure)
        tokens = try c.decodeIfPresent(TokenMetrics.self, forKey: .tokens)
        recentToolCalls = try c.decode([JSONValue].self, forKey: .recentToolCalls)
        recentEvents = try c.decode([JSONValue].self, forKey: .recentEvents)
        pendingQuestion = try c.decodeIfPresent(PendingQuestion.self, forKey: .pendingQuestion)
        lineCount = try c.decode(Int.self, forKey: .lineCount)
        malformedLines = try c.decode(Int.self, forKey: .malformedLines)
        // Absent from servers before ralph 2.10 support.
        guidance = try c.decodeIfPresent([GuidanceItem].self, forKey: .guidance) ?? []
        waves = try c.decodeIfPresent([WaveGroup].self, forKey: .waves) ?? []
        checkin = try c.decodeIfPresent(RobotCheckin.self, forKey: .checkin)
        rpc = try c.decodeIfPresent(RpcTelemetry.self, forKey: .rpc)
    }

    public func encode(to encoder: any Encoder) throws {
        try session.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stopReason, forKey: .stopReason)
        try c.encode(hatFlow, forKey: .hatFlow)
        try c.encode(hatTransitions, forKey: .hatTransitions)
        try c.encode(hatUsage, forKey: .hatUsage)
        try c.encode(iterationStats, forKey: .iterationStats)
        try c.encode(backpressure, forKey: .backpressure)
        try c.encode(tokens, forKey: .tokens)
        try c.encode(recentToolCalls, forKey: .recentToolCalls)
        try c.encode(recentEvents, forKey: .recentEvents)
        try c.encode(pendingQuestion, forKey: .pendingQuestion)
        try c.encode(lineCount, forKey: .lineCount)
        try c.encode(malformedLines, forKey: .malformedLines)
        try c.encode(guidance, forKey: .guidance)
        try c.encode(waves, forKey: .waves)
        try c.encode(checkin, forKey: .checkin)
        try c.encodeIfPresent(rpc, forKey: .rpc)
    }
}
