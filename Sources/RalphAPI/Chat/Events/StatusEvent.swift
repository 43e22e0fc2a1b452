/// The conversation's status changed.
public struct StatusEvent: Codable, Hashable, Sendable {
    public var status: ConversationStatus
    public var turnId: String?
    /// With `stalled`: seconds since the agent's last output.
    public var silentSecs: Int?
    public var queued: Int
    /// With `retrying`: the retry the agent CLI reported.
    public var retry: APIRetry?

    public init(status: ConversationStatus, turnId: String?, silentSecs: Int? = nil, queued: Int, retry: APIRetry? = nil) {
        self.status = status
        self.turnId = turnId
        self.silentSecs = silentSecs
        self.queued = queued
        self.retry = retry
    }

    enum CodingKeys: String, CodingKey {
        case status, queued, retry
        case turnId = "turn_id"
        case silentSecs = "silent_secs"
    }
}
