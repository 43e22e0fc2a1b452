/// `DELETE /api/sessions/{id}`.
///
/// A graceful stop (the default) answers at once with `status: "stopping"`: ralph ends at its next iteration boundary
/// with its own `loop.terminate` (reason `stopped`). A forced stop (`?force=true`, `{"force": true}`, or a second stop
/// while a graceful one is pending) answers once the process is gone, with `status: "stopped"` and the signal.
public struct StopSessionResponse: Codable, Hashable, Sendable {
    /// `stopping` (graceful, pending) or `stopped` (forced, done).
    public var status: String
    /// The signal that ended it: `SIGTERM` (ralph shut down within the grace period) or `SIGKILL`; nil for a graceful
    /// stop (no signal is sent).
    public var signal: String?
    /// The loop's process id, when known.
    public var pid: Int?
    /// Whether ralph wrote its `loop.terminate` record (false while a graceful stop is pending).
    public var terminated: Bool
    /// `graceful` or `forced` (see ``StopRequest``).
    public var kind: String?
    /// What happens next, in words ("stopping at the end of this iteration").
    public var message: String?

    public init(status: String, signal: String?, pid: Int?, terminated: Bool, kind: String? = nil, message: String? = nil) {
        self.status = status
        self.signal = signal
        self.pid = pid
        self.terminated = terminated
        self.kind = kind
        self.message = message
    }

    /// The words every client shows for a pending graceful stop.
    public static let gracefulMessage = "stopping at the end of this iteration"

    enum CodingKeys: String, CodingKey {
        case status, signal, pid, terminated, kind, message
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encode(signal, forKey: .signal)
        try c.encode(pid, forKey: .pid)
        try c.encode(terminated, forKey: .terminated)
        try c.encodeIfPresent(kind, forKey: .kind)
        try c.encodeIfPresent(message, forKey: .message)
    }
}
