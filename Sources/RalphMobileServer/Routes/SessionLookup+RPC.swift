import RalphAPI

extension SessionLookup {
    /// `detail` with what ralph's RPC events said of it (runs started here in RPC mode; others are left as they are).
    func withRPC(_ detail: SessionDetail) -> SessionDetail {
        guard let telemetry = supervisor.rpcTelemetry(sessionID: detail.session.id) else { return detail }
        var detail = detail
        detail.rpc = telemetry
        return detail
    }
}
