/// `POST /api/sessions/{id}/pause` and `/resume`: `{"status":"paused"}` / `{"status":"resumed"}`.
public struct ControlResponse: Codable, Hashable, Sendable {
    public var status: String
    public var pid: Int

    public init(status: String, pid: Int) {
        self.status = status
        self.pid = pid
    }
}
