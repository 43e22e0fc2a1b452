import HTTPTypes
import Hummingbird

/// Guards a trusted loopback server (bound to loopback, no key anywhere), which treats every caller as admin.
///
/// - **DNS rebinding.** A page on `evil.example` can have its name resolve to `127.0.0.1` and then talk to this server
///   as its own origin. The browser still sends `Host: evil.example`, so only loopback names are served: `localhost`,
///   `127.0.0.1`, `[::1]` and the bound address, with any port (SSH tunnels and port forwards change it). Anything else
///   is `421 misdirected_request:` — the status for "this server does not answer for that authority", which is
///   exactly the case; a `403` would suggest a key could help. A request without `Host` (HTTP/1.0 tools) is served:
///   browsers always send one.
/// - **Cross-site requests.** Anything that changes state must pass ``CrossSiteGuard``.
///
/// Once a key exists (`keys create` on a running server) the server is no longer trusted and this stands aside.
struct TrustedLoopbackMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let authenticator: Authenticator
    /// Host names served besides the loopback ones: the bound address.
    let hostNames: Set<String>

    init(authenticator: Authenticator, boundHost: String) {
        self.authenticator = authenticator
        hostNames = ["localhost", "127.0.0.1", "[::1]", HostAuthority.hostName(ofBindAddress: boundHost)]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !authenticator.authRequired else { return try await next(request, context) }
        try checkHost(request)
        if CrossSiteGuard.changesState(request.method) { try CrossSiteGuard.check(request) }
        return try await next(request, context)
    }

    func checkHost(_ request: Request) throws(APIError) {
        // HTTP/1 sends Host once; a second one (kept among the fields) is not something a browser makes.
        if request.headers[HTTPField.Name("Host")!] != nil { throw .misdirectedRequest("more than one Host header") }
        guard let host = request.head.authority else { return }
        guard let authority = HostAuthority(host), hostNames.contains(authority.host) else {
            throw .misdirectedRequest(
                "this server trusts local callers without a key, so it answers only to localhost, 127.0.0.1 and [::1]; "
                    + "Host was '\(host.prefix(100))'. To reach it by another name, give it a key (--api-key or `keys create`)"
            )
        }
    }
}
