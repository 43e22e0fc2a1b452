/// A stop asked of a run: `graceful` (ralph's `.ralph/stop-requested`, honoured at the next iteration boundary) or
/// `forced` (signals to the loop's process group). Shown on the session while the run winds down, and kept after the
/// end so the detail says which stop happened.
public struct StopRequest: Codable, Hashable, Sendable {
    /// `graceful` or `forced`.
    public var kind: String
    /// When it was asked (RFC 3339 UTC with milliseconds).
    public var at: String

    public init(kind: String, at: String) {
        self.kind = kind
        self.at = at
    }

    public static let graceful = "graceful"
    public static let forced = "forced"

    /// Whether this is a graceful request (the loop still runs to its iteration boundary).
    public var isGraceful: Bool { kind == Self.graceful }
}
