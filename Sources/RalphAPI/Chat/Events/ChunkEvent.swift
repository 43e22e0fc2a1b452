/// A real text delta of the agent's reply.
public struct ChunkEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var text: String
    public init(turnId: String, text: String) {
        self.turnId = turnId
        self.text = text
    }
    enum CodingKeys: String, CodingKey {
        case text
        case turnId = "turn_id"
    }
}
