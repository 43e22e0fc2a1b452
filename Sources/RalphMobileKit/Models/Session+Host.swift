import RalphAPI

/// A run's host, in a cluster of servers sharing one database (`host`, `host_id` and `reachable` are absent on a
/// server on its own).
extension Session {
    /// Its host is offline: what it does now is not known (`mode` and `status` are `unreachable`). Never live, never
    /// counted as active, and not controllable until its host is back.
    public var isUnreachable: Bool { reachable == false || mode == .unreachable }

    /// Whether the run belongs to the host `filter` names: its id, or its name ignoring case (the rule of
    /// `GET /api/sessions?host=`).
    public func isOnHost(_ filter: String) -> Bool {
        hostId == filter || host?.lowercased() == filter.lowercased()
    }

    /// The same run as it is shown once its host is offline (what the server announces next, as it does).
    func markedUnreachable() -> Session {
        var session = self
        session.reachable = false
        session.mode = .unreachable
        session.status = .unreachable
        session.pid = nil
        return session
    }
}
