extension StreamEventName {
    /// A session's detail on `GET /api/sessions/{id}/events?state=1`, sent after the replay and whenever it changes
    /// (the same JSON as `GET /api/sessions/{id}`), so clients need not re-fetch it during a live stream.
    public static let state = "state"
}
