import Hummingbird
import RalphAPI

/// Who may call a route. Every route of the server is registered in the group of its access (see ``Routes``), so the
/// check is a property of where a route lives, not a line each handler must remember.
enum RouteAccess: Sendable, Hashable, CustomStringConvertible {
    /// Anyone: the health checks, the web login and the dashboard's files. (``AuthMiddleware`` leaves `/api/health`,
    /// `/api/login` and `/api/logout` open; the dashboard's files are outside `/api/`.)
    case open
    /// A caller whose role includes this one.
    case role(Role)
    /// `GET /metrics`: an admin, or whoever presents the metrics key (`--metrics-key`), which grants this and nothing
    /// else (``RequireMetricsAccess``).
    case metrics

    var description: String {
        switch self {
        case .open: "open"
        case .role(let role): role.rawValue
        case .metrics: "admin or metrics key"
        }
    }
}

/// Lets through a request that presented the metrics key (``AuthMiddleware`` marks it), else refuses as
/// ``RequireRole`` does for admin: `401` without an identity, `403 forbidden: needs admin` with a smaller role.
struct RequireMetricsAccess: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if !context.metricsKeyPresented { try context.require(.admin) }
        return try await next(request, context)
    }
}

/// Refuses a caller without the group's role: `401 unauthorized` without an identity, `403 forbidden: needs <role>`
/// with too small a role — the same answers as ``AppRequestContext/require(_:)``, checked before the handler runs (and
/// so before any body is read).
struct RequireRole: RouterMiddleware {
    typealias Context = AppRequestContext
    let role: Role

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try context.require(role)
        return try await next(request, context)
    }
}
