/// ralph's RPC `guidance_ack`: guidance (`applies_to: next`) or an urgent steer (`applies_to: current`) was taken.
public struct RpcAck: Codable, Hashable, Sendable {
    public var message: String
    /// `current` (a steer, this iteration) or `next` (guidance or a follow-up, the next iteration).
    public var appliesTo: String
    /// The iteration in progress when the acknowledgement came, if one was.
    public var iteration: Int?
    public var at: String

    public init(message: String, appliesTo: String, iteration: Int? = nil, at: String) {
        self.message = message
        self.appliesTo = appliesTo
        self.iteration = iteration
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case message, iteration, at
        case appliesTo = "applies_to"
    }
}
