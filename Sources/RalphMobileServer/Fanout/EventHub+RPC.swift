extension EventHub {
    /// ralph's RPC events changed a run's telemetry: subscribers taking state frames get the new detail (coalesced by
    /// the state feed, so a burst of events is one frame).
    func rpcChanged(id: String) {
        if runs.stateInterest(id).any { stateQueue.mark(id, changed: true) }
    }
}
