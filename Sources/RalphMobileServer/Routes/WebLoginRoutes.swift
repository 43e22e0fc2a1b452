import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix
import RalphAPI

/// The web dashboard's login: `POST /api/login {key}` sets an `HttpOnly`, `SameSite=Strict` session cookie,
/// `POST /api/logout` ends it, `GET /api/whoami` says who the caller is (and so which controls to show).
///
/// Both must come from the dashboard's own origin (``CrossSiteGuard``), and a login counts against the
/// ``FailureThrottle`` like any wrong key.
struct WebLoginRoutes {
    let authenticator: Authenticator
    /// A cluster's logins, in its database (a login on one host works on all).
    let shared: SharedAuth?

    func register(on routes: Routes) {
        routes.open.post("/api/login") { request, context in
            guard authenticator.authRequired else {
                // A trusted loopback server has no login; its own middleware has checked where the request came from.
                _ = try await request.decode(as: LoginRequest.self, context: context)
                return JSONResponse.make(WhoAmI(role: .admin, keyID: nil, authRequired: false, via: "trusted"))
            }
            try CrossSiteGuard.check(request)
            let address = FailureThrottle.key(for: context.remoteAddress)
            if let wait = authenticator.throttle.refusal(for: address) { throw authenticator.throttle.error(waiting: wait) }
            let body = try await request.decode(as: LoginRequest.self, context: context)
            guard body.key.utf8.count <= 512, let identity = authenticator.identify(body.key) else {
                if let unavailable = authenticator.keysUnavailable(logger: context.logger) { throw unavailable }
                authenticator.throttle.failure(from: address)
                throw APIError.other(.unauthorized, .unauthorized, "that key is not valid on this server")
            }
            let keyID = identity.keyID ?? "cli"
            let fingerprint = keyID == "cli" ? authenticator.apiKeyFingerprint : nil
            let token = try await login(keyID: keyID, keyFingerprint: fingerprint)
            let expires = Timestamp.format(Date().addingTimeInterval(WebSessionStore.lifetime))
            var response = JSONResponse.make(WhoAmI(role: identity.role, keyID: keyID, authRequired: true, via: "cookie", expiresAt: expires))
            response.headers[.setCookie] = Self.cookie(token, maxAge: Int(WebSessionStore.lifetime), request: request)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        routes.open.post("/api/logout") { request, _ in
            try CrossSiteGuard.check(request)
            var ended = false
            if let token = request.cookies[WebSessionStore.cookieName]?.value, !token.isEmpty {
                ended = try await logout(token)
            }
            var response = JSONResponse.make(["status": ended ? "logged_out" : "not_logged_in"])
            response.headers[.setCookie] = Self.cookie("", maxAge: 0, request: request)
            return response
        }
        routes.viewer.get("/api/whoami") { request, context in
            guard let identity = context.identity else { throw APIError.unauthorized }
            let via: String =
                if !authenticator.authRequired { "trusted" } else if Authenticator.presentedKey(request) != nil { "key" } else { "cookie" }
            var expires: String?
            if via == "cookie", let token = request.cookies[WebSessionStore.cookieName]?.value,
                let session = authenticator.webSessions.session(for: token)
            {
                expires = Timestamp.format(Date(timeIntervalSince1970: session.expiresAt))
            }
            return JSONResponse.make(
                WhoAmI(role: identity.role, keyID: identity.keyID, authRequired: authenticator.authRequired, via: via, expiresAt: expires)
            )
        }
    }

    private func login(keyID: String, keyFingerprint: String?) async throws -> String {
        if let shared {
            do {
                return try await shared.login(keyID: keyID, keyFingerprint: keyFingerprint)
            } catch {
                throw APIError.other(.serviceUnavailable, .unavailable, "could not save the login in the cluster's database: \(error)")
            }
        }
        let sessions = authenticator.webSessions
        return try await NIOThreadPool.singleton.runIfActive { () throws -> String in
            do {
                return try sessions.create(keyID: keyID, keyFingerprint: keyFingerprint)
            } catch {
                throw APIError.internalError("could not save the login: \(error)")
            }
        }
    }

    private func logout(_ token: String) async throws -> Bool {
        if let shared {
            do {
                return try await shared.logout(token)
            } catch {
                throw APIError.other(.serviceUnavailable, .unavailable, "could not end the login in the cluster's database: \(error)")
            }
        }
        let sessions = authenticator.webSessions
        return try await NIOThreadPool.singleton.runIfActive { () throws -> Bool in
            do {
                return try sessions.end(token)
            } catch {
                throw APIError.internalError("could not end the login: \(error)")
            }
        }
    }

    /// `Set-Cookie` for the session token; `Secure` when the request came through an HTTPS proxy.
    static func cookie(_ token: String, maxAge: Int, request: Request) -> String {
        var cookie = "\(WebSessionStore.cookieName)=\(token); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
        if request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" { cookie += "; Secure" }
        return cookie
    }
}
