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
/// - Otherwise a key is required: `X-Api-Key`, `Authorization: Bearer`, or `?token=` on the stream routes (browsers'
///   EventSource cannot set headers; see ``StreamTokenRoutes``), or the web dashboard's session cookie. Keys come from the keys file (with
///   roles) and `--api-key` (admin).
public final class Authenticator: Sendable {
    let keyStore: KeyStore
    let apiKeyDigest: [UInt8]?
    let loopbackOnly: Bool
    let webSessions: WebSessionStore
    /// Refuses an address that keeps presenting wrong keys.
    let throttle: FailureThrottle
    /// The digest of `--metrics-key`: a key for `GET /metrics` and nothing else.
    let metricsKeyDigest: [UInt8]?

    public init(
        keyStore: KeyStore, apiKey: String?, loopbackOnly: Bool, webSessions: WebSessionStore, metricsKey: String? = nil, failureLimit: Int = 10
    ) {
        self.throttle = FailureThrottle(limit: failureLimit)
        self.keyStore = keyStore
        self.apiKeyDigest = apiKey.map { Array(SHA256.hash(data: Data($0.utf8))) }
        self.metricsKeyDigest = metricsKey.map { Array(SHA256.hash(data: Data($0.utf8))) }
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
        guard keyStore.failure == nil, let key = keyStore.keys.first(where: { $0.id == session.keyID }) else { return nil }
        return CallerIdentity(role: key.role, keyID: key.id)
    }

    /// The `503` for a caller who was not recognised while the keys file cannot be read: their key may well be in
    /// it, so a plain 401 would be a lie; nil while the file is readable. Logged each time, with the reason.
    func keysUnavailable(logger: Logger) -> APIError? {
        guard let failure = keyStore.failure else { return nil }
        logger.error("refused a keyed request: the keys file cannot be read", metadata: ["reason": "\(failure)"])
        return .keysFileUnreadable
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

    /// Whether `presented` is the metrics key (compared in constant time).
    func isMetricsKey(_ presented: String) -> Bool {
        guard let metricsKeyDigest, !presented.isEmpty else { return false }
        return KeyStore.constantTimeEqual(metricsKeyDigest, Array(SHA256.hash(data: Data(presented.utf8))))
    }

    /// The key a request presents, if any. An `X-Api-Key` header is a presented key even when empty (a client that
    /// meant to send one and has none is refused, not let through on another credential).
    static func presentedKey(_ request: Request) -> String? {
        if let key = request.headers[.xApiKey] { return key }
        if let auth = request.headers[.authorization] {
            let parts = auth.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        // A cross-site page could use an image or a script tag to try tokens and time the answers; the dashboard's own
        // streams are same-origin, and no other page can read a stream of this server anyway (no CORS).
        if StreamTokenRoutes.accepts(request), !CrossSiteGuard.isCrossSite(request), let token = request.uri.queryParameters["token"] {
            return String(token)
        }
        return nil
    }
}

extension APIError {
    /// `503 unavailable: …` while the keys file cannot be read (``KeyStore/failure``).
    static let keysFileUnreadable = APIError.other(
        .serviceUnavailable, .unavailable, "the server cannot read its keys file, so no key from it is accepted until it can (see the server log)"
    )
}

extension HTTPField.Name {
    static let xApiKey = HTTPField.Name("X-Api-Key")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
}
