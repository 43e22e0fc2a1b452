/// The values of ``HealthResponse/status``.
public enum HealthStatus {
    /// Everything is working.
    public static let ok = "ok"
    /// The server just started and is still settling what the previous one left (chat recovery); chat requests wait
    /// until it is done.
    public static let recovering = "recovering"
    /// Something could not be recovered after a restart: the affected conversations refuse requests, saying why.
    public static let degraded = "degraded"
}
