/// `GET /api/chat/{sessionId}/progress` (alias): the documented camelCase shape.
public struct AutoResponseProgressAlias: Codable, Hashable, Sendable {
    public var sessionId: String
    public var autoResponseActive: Bool
    public var isPaused: Bool
    public var iterations: Int
    public var maxIterations: Int
    public var confidence: Double?
    public var mode: AutoReplyMode
    public var startTime: String?
    public var stopReason: AutoReplyReason?

    public init(_ progress: AutoReplyProgress) {
        sessionId = progress.conversationId
        autoResponseActive = progress.state == .running
        isPaused = progress.state == .paused
        iterations = progress.iterations
        maxIterations = progress.maxIterations
        confidence = progress.confidence
        mode = progress.mode
        startTime = progress.startedAt
        stopReason = progress.stopReason
    }
}
