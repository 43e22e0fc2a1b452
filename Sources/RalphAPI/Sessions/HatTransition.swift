/// A change of the hat at work.
public struct HatTransition: Codable, Hashable, Sendable {
    /// The previous hat (nil for the first transition).
    public var from: String?
    public var to: String
    /// The topic that triggered the change.
    public var topic: String
    public var at: String?
    public var iteration: Int
    /// Event id (line number) of the triggering event.
    public var eventId: Int

    public init(from: String?, to: String, topic: String, at: String?, iteration: Int, eventId: Int) {
        self.from = from
        self.to = to
        self.topic = topic
        self.at = at
        self.iteration = iteration
        self.eventId = eventId
    }

    enum CodingKeys: String, CodingKey {
        case from, to, topic, at, iteration
        case eventId = "event_id"
    }
}
