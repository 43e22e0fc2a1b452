import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RalphAPI
import Synchronization

/// Decides who a caller is.
///
/// - A server bound only to loopback with no key configured trusts every caller as admin (local development).
/// - Otherwise a key is required: `X-Api-Key`, `Authorization: Bearer`, or `?token=` on the SSE routes (browsers'
///   EventSource cannot set headers), or the web dashboard's session cookie. Keys come from the keys file (with
///   roles) and `--api-key` (admin).
public final class Authenticator: Sendable {
    let keyStore: KeyStore
    let apiKeyDigest: [UInt8]?
    let loopbackOnly: Bool
    let webSessions: WebSessionStore
    let throttle = FailureThrottle()

    public init(keyStore: KeyStore, apiKey: String?, loopbackOnly: Bool, webSessions: WebSessionStore) {
        self.keyStore = keyStore
        self.apiKeyDigest = apiKey.map { Array(SHA256.hash(data: Data($0.utf8))) }
        self.loopbackOnly = loopbackOnly
        self.webSessions = webSessions
    }

    /// A digest of `--api-key` that web sessions opened with it remember, so changing the key ends them.
    var apiKeyFingerprint: String? {
        apiKeyDigest.map { SHA256.hash(data: Data($0)).prefix(8).map { String(format: "%02x", $0) }.joined() }
    }

    /// The identity of a web session's cookie token: the current role of the key that logged in, nil when the session
    /// ended, expired, or its key was revoked.
    func identify(webSession token: String) -> CallerIdentity? {
        guard authRequired else { return CallerIdentity(role: .admin, keyID: nil) }
        guard let session = webSessions.session(for: token) else { return nil }
        if session.keyID == "cli" {
            guard let fingerprint = apiKeyFingerprint, session.keyFingerprint == fingerprint else { return nil }
            return CallerIdentity(role: .admin, keyID: "cli")
        }
        guard let key = keyStore.keys.first(where: { $0.id == session.keyID }) else { return nil }
        return CallerIdentity(role: key.role, keyID: key.id)
    }

    /// Whether callers must present a key.
    public var authRequired: Bool { !loopbackOnly || apiKeyDigest != nil || !keyStore.isEmpty }

    /// The identity a presented key grants, if it is valid.
    public func identify(_ presented: String?) -> CallerIdentity? {
        guard authRequired else { return CallerIdentity(role: .admin, keyID: nil) }
        guard let presented, !presented.isEmpty else { return nil }
        var identity: CallerIdentity?
        if let stored = keyStore.authenticate(presented) { identity = CallerIdentity(role: stored.role, keyID: stored.id) }
        if let apiKeyDigest, KeyStore.constantTimeEqual(apiKeyDigest, Array(SHA256.hash(data: Data(presented.utf8)))) {
            identity = CallerIdentity(role: .admin, keyID: "cli")
        }
        return identity
    }

    /// The key a request presents, if any.
    static func presentedKey(_ request: Request) -> String? {
        if let key = request.headers[.xApiKey], !key.isEmpty { return key }
        if let auth = request.headers[.authorization] {
            let parts = auth.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        if request.method == .get, request.uri.path.hasSuffix("/events"), let token = request.uri.queryParameters["token"] {
            return String(token)
        }
        return nil
    }
}

extension HTTPField.Name {
    static let xApiKey = HTTPField.Name("X-Api-Key")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
}

/// Slows down repeated failed authentications from one address: after 5 failures within a minute, each further
/// failure waits 0.5 s, doubling up to 8 s, before its 401.
final class FailureThrottle: Sendable {
    struct Entry {
        var failures: Int
        var windowStart: ContinuousClock.Instant
    }

    static let freeFailures = 5
    static let window: Duration = .seconds(60)
    private let entries = Mutex<[String: Entry]>([:])

    /// Records a failure; returns how long to wait before answering.
    func failure(from address: String, now: ContinuousClock.Instant = .now) -> Duration {
        entries.withLock { entries in
            if entries.count > 10_000 { entries = entries.filter { now - $0.value.windowStart < Self.window } }
            var entry = entries[address] ?? Entry(failures: 0, windowStart: now)
            if now - entry.windowStart > Self.window { entry = Entry(failures: 0, windowStart: now) }
            entry.failures += 1
            entries[address] = entry
            let excess = entry.failures - Self.freeFailures
            guard excess > 0 else { return .zero }
            return min(.milliseconds(500) * (1 << min(excess - 1, 4)), .seconds(8))
        }
    }

    func success(from address: String) {
        entries.withLock { _ = $0.removeValue(forKey: address) }
    }
}

/// Authenticates every `/api/` request except `/api/health` and the web login/logout; the identity goes into the
/// context for role checks.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let authenticator: Authenticator

    static let open: Set<String> = ["/api/health", "/api/login", "/api/logout"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/api/"), !Self.open.contains(path) else { return try await next(request, context) }
        var context = context
        let address = context.remoteAddress?.ipAddress ?? "unknown"
        let identity: CallerIdentity?
        if let key = Authenticator.presentedKey(request) {
            identity = authenticator.identify(key)
        } else if authenticator.authRequired, let token = request.cookies[WebSessionStore.cookieName]?.value, !token.isEmpty {
            // A cookie rides along with any request the browser makes; SameSite=Strict keeps other sites' requests
            // from carrying it, and a changing request must also come from this origin.
            if request.method != .get && request.method != .head && !Self.isSameOrigin(request) {
                throw APIError.forbiddenAction("cross-origin request")
            }
            identity = authenticator.identify(webSession: token)
        } else {
            identity = authenticator.identify(nil)
        }
        if let identity {
            authenticator.throttle.success(from: address)
            context.identity = identity
            return try await next(request, context)
        }
        let delay = authenticator.throttle.failure(from: address)
        if delay > .zero {
            context.logger.notice("repeated authentication failures", metadata: ["address": "\(address)"])
            try await Task.sleep(for: delay)
        }
        throw APIError.unauthorized
    }

    /// True when the request has no `Origin` (not a cross-site browser request) or its origin's host is the `Host`.
    static func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        // HTTP/1's Host header arrives as the request's authority.
        guard let host = request.head.authority else { return false }
        guard let components = URLComponents(string: origin), let originHost = components.host else { return false }
        let originAuthority = components.port.map { "\(originHost):\($0)" } ?? originHost
        return originAuthority.lowercased() == host.lowercased()
    }
}
