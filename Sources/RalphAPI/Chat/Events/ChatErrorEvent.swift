public struct ChatErrorEvent: Codable, Hashable, Sendable {
    public var turnId: String?
    public var message: String
    /// True when sending another message can carry on (the process is restarted with `--resume`).
    public var recoverable: Bool

    public init(turnId: String?, message: String, recoverable: Bool) {
        self.turnId = turnId
        self.message = message
        self.recoverable = recoverable
    }

    enum CodingKeys: String, CodingKey {
        case message, recoverable
        case turnId = "turn_id"
    }
}
