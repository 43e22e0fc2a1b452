/// A ralph event as a client receives it (the `data` of a `workflow` frame, or an item of `recent_events`).
public struct WorkflowEvent: Sendable, Hashable, Identifiable {
    /// The event's id in its run (its line number), as a number.
    public var id: Int
    public var topic: String
    /// The payload as text (a non-string payload arrives as compact JSON here and as JSON in ``payloadJSON``).
    public var payload: String?
    public var payloadJSON: JSONValue?
    /// `ts` as ralph wrote it.
    public var ts: String?
    public var iteration: Int?
    public var hat: String?
    public var triggered: String?
    /// Every field as sent.
    public var fields: JSONObject

    /// Decodes the JSON of one event; nil if it is not an event object with a numeric `id` and a `topic`.
    public init?(json: JSONValue) {
        guard case .object(let o) = json, let id = o["id"]?.intValue, let topic = o["topic"]?.stringValue else { return nil }
        self.id = id
        self.topic = topic
        self.payload = o["payload"]?.stringValue
        self.payloadJSON = o["payload_json"]
        self.ts = o["ts"]?.stringValue
        self.iteration = o["iteration"]?.intValue
        self.hat = o["hat"]?.stringValue
        self.triggered = o["triggered"]?.stringValue
        self.fields = o
    }

    /// Decodes the `data` text of a frame.
    public init?(data: String) {
        guard let value = try? JSONParser.parse(data) else { return nil }
        self.init(json: value)
    }
}
