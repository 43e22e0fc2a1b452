import Hummingbird

/// Authenticates every `/api/` request except `/api/health`, the web login/logout and notification actions; the
/// identity goes into the context for role checks.
///
/// - A presented key is looked up unless its address is refused by the ``FailureThrottle`` (`429`); a wrong one counts
///   against the address.
/// - While the keys file cannot be read, a key or cookie that is not recognised gets `503 unavailable: …` (fail
///   closed: see ``KeyStore/failure``).
/// - The dashboard's cookie rides along with any request the browser makes. `SameSite=Strict` keeps other sites'
///   requests from carrying it, and a request that changes something must also pass ``CrossSiteGuard`` (another port
///   of the same host is the same site).
struct AuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let authenticator: Authenticator

    /// The `/api/` routes registered on ``Routes/open`` (``RouteAccessTests`` checks the two agree). A notification
    /// action carries its own credential, a single-use token, and so does a pairing exchange (a single-use code).
    static let open: Set<String> = ["/api/health", "/api/login", "/api/logout", "/api/notifications/actions", "/api/pairing/exchange"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // `/metrics` is outside `/api/` (where scrapers look for it) and authenticated like the API.
        let isMetrics = path == MetricsRoutes.path
        guard isMetrics || (path.hasPrefix("/api/") && !Self.open.contains(path)) else { return try await next(request, context) }
        // A command another host of the cluster sent: its caller was authenticated there, and its role comes with it.
        guard context.identity == nil else { return try await next(request, context) }
        var context = context
        let identity: CallerIdentity?
        if let key = Authenticator.presentedKey(request) {
            if isMetrics, try metricsKey(key, context: context) {
                context.metricsKeyPresented = true
                return try await next(request, context)
            }
            identity = try identify(key: key, context: context)
        } else if authenticator.authRequired, let token = request.cookies[WebSessionStore.cookieName]?.value, !token.isEmpty {
            if CrossSiteGuard.changesState(request.method) { try CrossSiteGuard.check(request) }
            identity = authenticator.identify(webSession: token)
            if identity == nil, let unavailable = authenticator.keysUnavailable(logger: context.logger) { throw unavailable }
        } else {
            identity = authenticator.identify(nil)
        }
        guard let identity else { throw APIError.unauthorized }
        context.identity = identity
        return try await next(request, context)
    }

    /// Whether a key presented to `/metrics` is the metrics key; throws `429` while its address is refused (so the
    /// metrics key cannot be guessed faster than any other).
    func metricsKey(_ key: String, context: Context) throws(APIError) -> Bool {
        if authenticator.authRequired {
            let address = FailureThrottle.key(for: context.remoteAddress)
            if let wait = authenticator.throttle.refusal(for: address) {
                context.logger.notice("refused: too many wrong keys", metadata: ["address": "\(address)"])
                throw authenticator.throttle.error(waiting: wait)
            }
        }
        return authenticator.isMetricsKey(key)
    }

    /// The identity a presented key grants; throws `429` while its address is refused.
    func identify(key: String, context: Context) throws(APIError) -> CallerIdentity? {
        guard authenticator.authRequired else { return authenticator.identify(key) }
        let address = FailureThrottle.key(for: context.remoteAddress)
        let throttle = authenticator.throttle
        if let wait = throttle.refusal(for: address) {
            context.logger.notice("refused: too many wrong keys", metadata: ["address": "\(address)"])
            throw throttle.error(waiting: wait)
        }
        let identity = authenticator.identify(key)
        if identity == nil, let unavailable = authenticator.keysUnavailable(logger: context.logger) {
            // Not counted against the address: the key may be right.
            throw unavailable
        }
        if identity == nil { throttle.failure(from: address) }
        return identity
    }
}
