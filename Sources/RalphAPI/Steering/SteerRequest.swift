/// `POST /api/sessions/{id}/steer`.
public struct SteerRequest: Codable, Hashable, Sendable {
    public var message: String
    /// true: land in the current iteration (ralph's RPC `steer` for a run this server started in RPC mode; for a
    /// discovered run only with `--experimental-urgent-steer`). false or absent: the next iteration.
    public var urgent: Bool?

    public init(message: String, urgent: Bool? = nil) {
        self.message = message
        self.urgent = urgent
    }
}
