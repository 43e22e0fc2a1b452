/// `POST /api/conversations/{id}/messages`.
public struct SendMessageRequest: Codable, Hashable, Sendable {
    public var text: String
    public var mode: SendMode?

    public init(text: String, mode: SendMode? = nil) {
        self.text = text
        self.mode = mode
    }
}
