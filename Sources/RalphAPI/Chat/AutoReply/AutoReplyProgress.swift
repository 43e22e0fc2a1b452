/// `GET /api/conversations/{id}/auto-reply`, and the data of the `auto_reply` event.
public struct AutoReplyProgress: Codable, Hashable, Sendable {
    public var conversationId: String
    public var mode: AutoReplyMode
    public var state: AutoReplyState
    public var iterations: Int
    public var maxIterations: Int
    /// Auto-replies sent.
    public var messages: Int
    public var maxMessages: Int?
    public var elapsedSecs: Int
    public var maxMinutes: Int?
    /// Completion confidence of the last reply judged (0 – 1).
    public var confidence: Double?
    public var stopReason: AutoReplyReason?
    public var pauseReason: AutoReplyReason?
    /// Words for a person: what was detected, why it stopped or paused.
    public var detail: String?
    public var startedAt: String?
    public var updatedAt: String
    /// The prompt waiting for confirmation (`require_confirmation`).
    public var pendingPrompt: String?

    public init(
        conversationId: String, mode: AutoReplyMode, state: AutoReplyState, iterations: Int, maxIterations: Int, messages: Int, maxMessages: Int?,
        elapsedSecs: Int, maxMinutes: Int?, confidence: Double?, stopReason: AutoReplyReason?, pauseReason: AutoReplyReason?, detail: String?,
        startedAt: String?, updatedAt: String, pendingPrompt: String?
    ) {
        self.conversationId = conversationId
        self.mode = mode
        self.state = state
        self.iterations = iterations
        self.maxIterations = maxIterations
        self.messages = messages
        self.maxMessages = maxMessages
        self.elapsedSecs = elapsedSecs
        self.maxMinutes = maxMinutes
        self.confidence = confidence
        self.stopReason = stopReason
        self.pauseReason = pauseReason
        self.detail = detail
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.pendingPrompt = pendingPrompt
    }

    enum CodingKeys: String, CodingKey {
        case mode, state, iterations, messages, confidence, detail
        case conversationId = "conversation_id"
        case maxIterations = "max_iterations"
        case maxMessages = "max_messages"
        case elapsedSecs = "elapsed_secs"
        case maxMinutes = "max_minutes"
        case stopReason = "stop_reason"
        case pauseReason = "pause_reason"
        case startedAt = "started_at"
        case updatedAt = "updated_at"
        case pendingPrompt = "pending_prompt"
    }
}
