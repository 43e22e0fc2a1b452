import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix
import RalphAPI

/// Pairing a phone by QR code (issue 26): `POST /api/pairing` (admins) makes a single-use code and answers the pairing
/// page's URL with the code in its fragment, as text and as a QR code; `POST /api/pairing/exchange` (open: the phone
/// has no key yet) spends the code for a new key of the code's role, and either answers the key's secret once (an app)
/// or logs the browser in with a session cookie, as `POST /api/login` does (the web pairing page, `/pair`).
///
/// - Codes live in ``PairingStore`` (`<data-dir>/pairing.json`), digests only, shared with `ralph-mobile-server pair`.
/// - A wrong code counts against the caller's address in the same ``FailureThrottle`` as wrong keys: after ten, `429`.
/// - In a cluster, both routes refuse: a code made on one host would be unknown to the others, and a phone cannot
///   tell which host it reaches.
struct PairingRoutes {
    let store: PairingStore
    let keyStore: KeyStore
    let authenticator: Authenticator
    let boundHost: String
    let boundPort: @Sendable () -> Int
    let clustered: Bool

    static let clusterRefusal = APIError.conflict(
        "pairing codes are kept by one host, so a cluster does not offer them; create a key with POST /api/keys or `ralph-mobile-server keys create --database`"
    )

    func register(on routes: Routes) {
        routes.admin.post("/api/pairing") { request, context in
            guard !clustered else { throw Self.clusterRefusal }
            guard let identity = context.identity else { throw APIError.unauthorized }
            let body = try await request.decode(as: CreatePairingRequest.self, context: context)
            if let name = body.name { try TextLimit.keyName.check(name, field: "name") }
            let lifetime = body.expiresIn ?? PairingStore.defaultLifetime
            let base: ReachableAddress.Guess
            if let url = body.url {
                do {
                    base = ReachableAddress.Guess(url: try ReachableAddress.validatedBase(url), warning: nil)
                } catch {
                    throw APIError.invalidBody("url: \(error)")
                }
            } else {
                base = baseURL(for: request)
            }
            let store = self.store
            let made = try await NIOThreadPool.singleton.runIfActive { () throws -> (code: String, entry: PairingStore.Entry) in
                do throws(PairingStore.PairingError) {
                    return try store.create(role: body.role, name: body.name, creatorRole: identity.role, lifetime: lifetime)
                } catch {
                    switch error {
                    case .roleTooWide, .badLifetime, .tooManyPending: throw APIError.invalidBody(error.description)
                    default: throw APIError.internalError(error.description)
                    }
                }
            }
            let url = ReachableAddress.pairingURL(base: base.url, code: made.code)
            let qr: QRCode
            do {
                qr = try QRCode(encoding: url)
            } catch {
                throw APIError.invalidBody("url: \(error)")
            }
            let created = CreatedPairing(
                code: made.code, url: url, role: made.entry.role, name: made.entry.name,
                expiresAt: Timestamp.format(Date(timeIntervalSince1970: made.entry.expiresAt)),
                qrSVG: qr.svg(title: "QR code: pair a device as \(made.entry.role.rawValue)"), warning: base.warning)
            context.logger.notice(
                "pairing code made", metadata: ["role": "\(made.entry.role.rawValue)", "by": "\(identity.keyID ?? "trusted")"])
            var response = JSONResponse.make(created, status: .created)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        routes.open.post("/api/pairing/exchange") { request, context in
            guard !clustered else { throw Self.clusterRefusal }
            let address = FailureThrottle.key(for: context.remoteAddress)
            let throttle = authenticator.throttle
            if let wait = throttle.refusal(for: address) {
                context.logger.notice("refused a pairing code: too many wrong keys or codes", metadata: ["address": "\(address)"])
                throw throttle.error(waiting: wait)
            }
            let body = try await request.decode(as: PairingExchangeRequest.self, context: context)
            let login = body.login ?? false
            // A page of another site must not be able to spend a code someone pasted into it and log this browser in.
            if login { try CrossSiteGuard.check(request) }
            let store = self.store
            let entry: PairingStore.Entry
            do {
                entry = try await NIOThreadPool.singleton.runIfActive { () throws -> PairingStore.Entry in try store.consume(body.code) }
            } catch let error as PairingStore.PairingError {
                switch error {
                case .malformed, .unknown:
                    throttle.failure(from: address)
                    context.logger.notice("a wrong pairing code", metadata: ["address": "\(address)"])
                    throw error == .malformed ? APIError.invalidBody(error.description) : APIError.notFound(error.description)
                case .used, .expired:
                    throw APIError.other(.gone, .conflict, error.description)
                default:
                    throw APIError.internalError(error.description)
                }
            }
            let keyStore = self.keyStore
            let made = try await NIOThreadPool.singleton.runIfActive { () throws -> (key: StoredKey, secret: String) in
                do throws(KeyStore.KeyError) {
                    let made = try keyStore.create(role: entry.role, name: entry.name)
                    // Only bookkeeping: the key exists whether or not the file says which code made it.
                    try? store.record(keyID: made.key.id, for: entry)
                    return made
                } catch {
                    throw APIError.internalError("the pairing code was spent but the key could not be stored: \(error.description); ask for a new code")
                }
            }
            context.logger.notice(
                "a device paired", metadata: ["key": "\(made.key.id)", "role": "\(made.key.role.rawValue)", "login": "\(login)"])
            let info = KeyRoutes.info(made.key)
            guard login else {
                var response = JSONResponse.make(PairedDevice(key: info, secret: made.secret, login: nil), status: .created)
                response.headers[.cacheControl] = "no-store"
                return response
            }
            let sessions = authenticator.webSessions
            let token = try await NIOThreadPool.singleton.runIfActive { () throws -> String in
                do {
                    return try sessions.create(keyID: made.key.id, keyFingerprint: nil)
                } catch {
                    throw APIError.internalError("the key was made but the login could not be saved: \(error)")
                }
            }
            let expires = Timestamp.format(Date().addingTimeInterval(WebSessionStore.lifetime))
            let whoami = WhoAmI(role: made.key.role, keyID: made.key.id, authRequired: authenticator.authRequired, via: "cookie", expiresAt: expires)
            var response = JSONResponse.make(PairedDevice(key: info, secret: nil, login: whoami), status: .created)
            response.headers[.setCookie] = WebLoginRoutes.cookie(token, maxAge: Int(WebSessionStore.lifetime), request: request)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// The base URL for a code made through the API: the address the admin's browser used, unless that is a loopback
    /// name (a phone cannot use it), in which case one derived from the address the server listens on.
    func baseURL(for request: Request) -> ReachableAddress.Guess {
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
        let scheme = forwarded ? "https" : "http"
        if let authority = request.head.authority, let parsed = HostAuthority(authority), !ServerConfiguration.isLoopback(parsed.host) {
            return ReachableAddress.Guess(url: "\(scheme)://\(authority)", warning: nil)
        }
        return ReachableAddress.guess(boundHost: boundHost, port: boundPort(), scheme: scheme)
    }
}
