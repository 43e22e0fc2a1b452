/// `POST /api/sessions/{id}/steer`.
public struct SteerRequest: Codable, Hashable, Sendable {
    public var message: String
    public init(message: String) { self.message = message }
}
