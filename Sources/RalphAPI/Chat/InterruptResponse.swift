/// `POST /api/conversations/{id}/interrupt` answer.
public struct InterruptResponse: Codable, Hashable, Sendable {
    /// The turn being interrupted.
    public var turnId: String
    public init(turnId: String) { self.turnId = turnId }
    enum CodingKeys: String, CodingKey { case turnId = "turn_id" }
}
