import HTTPTypes
import Hummingbird
import NIOCore
import RalphAPI

/// The web dashboard: `/` (the app), `/pair` (the page a pairing QR code opens), `/manifest.webmanifest`, `/sw.js` (the
/// service worker that shows notifications: at the root, so that its scope is the whole dashboard), `/assets/**` (CSS,
/// JavaScript modules, icons), `/favicon.ico` (the 192 px PNG icon, for browsers that ask for it where no page names an
/// icon: an image or JSON opened directly).
///
/// Every response carries a strong ETag and `Cache-Control: no-cache`, so a browser revalidates (a cheap 304) and
/// picks up a new server's dashboard at once. The page itself gets a strict Content-Security-Policy: scripts only from
/// this server, no inline script, no framing.
struct WebRoutes {
    let assets: WebAssets

    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func register(on routes: Routes) {
        let files: [(path: String, file: String?)] = [
            ("/", "index.html"), ("/index.html", "index.html"), ("/manifest.webmanifest", "manifest.webmanifest"), ("/sw.js", "sw.js"),
            ("/docs", "docs.html"), ("/pair", "pair.html"),
            ("/favicon.ico", "assets/icons/icon-192.png"), ("/assets/**", nil),
        ]
        for (path, file) in files {
            let route = RouterPath(path)
            routes.open.get(route) { request, _ in try serve(file ?? String(request.uri.path.dropFirst()), request) }
            routes.open.head(route) { request, _ in try serve(file ?? String(request.uri.path.dropFirst()), request, headOnly: true) }
        }
    }

    func serve(_ relative: String, _ request: Request, headOnly: Bool = false) throws -> Response {
        guard let asset = try assets.asset(relative) else { throw APIError.notFound("no file /\(relative) in the dashboard") }
        return Self.respond(with: asset, request, headOnly: headOnly)
    }

    /// A file served from memory: strong ETag, `304` when the client has it, never sniffed; HTML pages get the
    /// dashboard's security headers.
    static func respond(with asset: WebAssets.Asset, _ request: Request, headOnly: Bool = false) -> Response {
        var headers: HTTPFields = [
            .eTag: asset.etag,
            .cacheControl: "no-cache",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        if asset.contentType.hasPrefix("text/html") {
            headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        }
        if let match = request.headers[.ifNoneMatch], matches(match, etag: asset.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        if headOnly {
            headers[.contentLength] = String(asset.body.readableBytes)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }

    /// `If-None-Match` is a list of ETags (weak ones compare by their opaque part) or `*`.
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
