/// The optional body of `DELETE /api/sessions/{id}`: `{"force": true}` signals the process group instead of asking
/// ralph to stop at its next iteration boundary (the same as `?force=true`).
public struct StopSessionRequest: Codable, Hashable, Sendable {
    public var force: Bool?

    public init(force: Bool?) {
        self.force = force
    }
}
