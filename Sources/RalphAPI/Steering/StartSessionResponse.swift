/// `201` answer of `POST /api/sessions`.
public struct StartSessionResponse: Codable, Hashable, Sendable {
    /// The new run's session id; or, when ralph has not created its events file yet, a pending id that every
    /// session route accepts and that resolves to the run once it appears.
    public var id: String
    /// `starting`.
    public var status: String
    /// True when ``id`` is a pending id.
    public var pending: Bool
    public var pid: Int
    /// `GET` this for ralph's output.
    public var log: String

    public init(id: String, status: String, pending: Bool, pid: Int, log: String) {
        self.id = id
        self.status = status
        self.pending = pending
        self.pid = pid
        self.log = log
    }
}
