import HTTPTypes
import Hummingbird

/// The routes that accept a key as `?token=`: the streams a browser opens with `EventSource`, which cannot set a
/// header. Nowhere else: a key in a URL ends up in histories and logs, so it is taken only where there is no other way.
///
/// Matched segment by segment against the real stream routes — not by how a path ends, which a library path such as
/// `/api/prompts/notes/events` could imitate.
enum StreamTokenRoutes {
    /// `GET /api/events`, `GET /api/sessions/{id}/events`, `GET /api/conversations/{id}/events`, and
    /// `GET /api/sessions/{id}/log` while it follows the log (not with `follow=false` or `follow=0`).
    static func accepts(_ request: Request) -> Bool {
        guard request.method == .get else { return false }
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        switch segments.count {
        case 2:
            return segments[0] == "api" && segments[1] == "events"
        case 4:
            guard segments[0] == "api" else { return false }
            switch (segments[1], segments[3]) {
            case ("sessions", "events"), ("conversations", "events"): return true
            case ("sessions", "log"): return request.uri.queryParameters["follow"].map { $0 != "false" && $0 != "0" } ?? true
            default: return false
            }
        default:
            return false
        }
    }
}
