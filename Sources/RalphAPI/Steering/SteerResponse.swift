/// `200` answer of `POST /api/sessions/{id}/steer`.
public struct SteerResponse: Codable, Hashable, Sendable {
    /// `delivered`: the `human.guidance` event is in the run's file; ralph adds it to its next iteration's prompt.
    public var status: String
    public var deliveredAt: String
    public var id: String

    public init(status: String, deliveredAt: String, id: String) {
        self.status = status
        self.deliveredAt = deliveredAt
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case status, id
        case deliveredAt = "delivered_at"
    }
}
