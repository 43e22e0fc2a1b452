/// `DELETE /api/sessions/{id}`.
public struct StopSessionResponse: Codable, Hashable, Sendable {
    /// `stopped`.
    public var status: String
    /// The signal that ended it: `SIGTERM` (ralph shut down within the grace period) or `SIGKILL`.
    public var signal: String
    public var pid: Int
    /// Whether ralph wrote its `loop.terminate` record.
    public var terminated: Bool

    public init(status: String, signal: String, pid: Int, terminated: Bool) {
        self.status = status
        self.signal = signal
        self.pid = pid
        self.terminated = terminated
    }
}
