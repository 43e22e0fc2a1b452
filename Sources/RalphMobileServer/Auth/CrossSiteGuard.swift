import HTTPTypes
import Hummingbird

/// Keeps web pages of other sites from changing anything through a browser the server would trust on sight.
///
/// A browser lets any page send "simple" requests anywhere — a form post, or a `fetch` with a `text/plain` body or
/// none — and it adds the target's cookies when the sites match. Two kinds of caller are trusted without a key they
/// typed: every local caller of a trusted loopback server, and a browser holding the dashboard's login cookie. For
/// them, a request that changes something (any method but `GET`, `HEAD` and `OPTIONS`) must also be one another site
/// cannot make:
///
/// - `Sec-Fetch-Site`, when sent, is `same-origin` or `none`. `cross-site` is refused, and so is `same-site`: another
///   port of the same host (a dev server on `localhost:3000`, any web app on the machine) is the same *site* but
///   another *origin*, and no more trusted than the internet.
/// - `Origin`, when sent, is this server's own: the same host and port as `Host`. Browsers send it with every request
///   that is not a `GET` or `HEAD`; `null` (sandboxed frames, files) is refused. Clients that are not browsers (the
///   iOS app, `RalphMobileKit`, the terminal client, curl) send none, and pass.
/// - A body is declared as JSON (`Content-Type: application/json`, parameters allowed). A page can only send
///   `text/plain`, form or multipart bodies without asking the server first (a CORS preflight, which this server never
///   grants). A request with no body needs no content type: the routes that take none (`pause`, `interrupt`,
///   `logout`, `DELETE`) are sent that way by the iOS app, and browsers add `Origin` to them.
///
/// Requests that carry a key (`X-Api-Key`, `Authorization`) are not checked: a page cannot add those headers to another
/// origin without a preflight either, and a key is not something a browser sends on its own.
enum CrossSiteGuard {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// Whether `method` can change something (everything but `GET`, `HEAD`, `OPTIONS`).
    static func changesState(_ method: HTTPRequest.Method) -> Bool {
        method != .get && method != .head && method != .options
    }

    /// Throws `403 forbidden: cross-origin request` or `415 unsupported_media_type:` unless `request` could only have
    /// come from this server's own pages or from a client that is not a browser.
    static func check(_ request: Request) throws(APIError) {
        if isCrossSite(request) { throw .forbiddenAction("cross-origin request") }
        if let origin = request.headers[.origin], !isOwnOrigin(origin, request: request) {
            throw .forbiddenAction("cross-origin request")
        }
        if hasBody(request), !isJSON(request.headers[.contentType]) {
            throw .unsupportedMediaType("a request that changes something must send its body as Content-Type: application/json")
        }
    }

    /// True when the browser says another site or another origin of this site made the request.
    static func isCrossSite(_ request: Request) -> Bool {
        guard let site = request.headers[secFetchSite]?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return site != "same-origin" && site != "none"
    }

    /// Whether `origin` names the host and port the request was sent to (its `Host`).
    static func isOwnOrigin(_ origin: String, request: Request) -> Bool {
        guard let (scheme, claimed) = HostAuthority.ofOrigin(origin.trimmingCharacters(in: .whitespaces)),
            let hostHeader = request.head.authority, var target = HostAuthority(hostHeader)
        else { return false }
        if target.port == nil { target.port = scheme == "https" ? 443 : 80 }
        return claimed == target
    }

    /// A request has a body when it declares a length above zero or is sent in chunks (HTTP/1.1 framing: with
    /// neither, there is none).
    static func hasBody(_ request: Request) -> Bool {
        if request.headers[.transferEncoding] != nil { return true }
        guard let length = request.headers[.contentLength] else { return false }
        return Int(length.trimmingCharacters(in: .whitespaces)) != 0
    }

    /// `application/json`, with any parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return mediaType == "application/json"
    }
}
