import Crypto
import Foundation

/// Voluntary Application Server Identification (RFC 8292): the server signs each push request with one long-lived
/// P-256 key, whose public half the browser was given at subscription time (`applicationServerKey`).
public struct VAPID: Sendable {
    /// Why a VAPID identity could not be made.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The subject is not a `mailto:` address or an `https:` URL (Apple's push service refuses anything else).
        case badSubject(String)
        /// The endpoint is not an absolute `https:` (or, for local receivers, `http:`) URL.
        case badEndpoint(String)

        public var description: String {
            switch self {
            case .badSubject(let subject):
                "the VAPID subject '\(subject)' must be a mailto: address or an https: URL (push services refuse others)"
            case .badEndpoint(let endpoint): "the push endpoint '\(endpoint)' is not an http(s) URL"
            }
        }
    }

    /// The signing key's 32 raw bytes (the key type itself is not `Sendable`).
    private let keyBytes: Data
    /// Who runs this server: `mailto:you@example.com` or `https://…`, sent as the token's `sub`.
    public let subject: String

    public init(key: P256.Signing.PrivateKey, subject: String) throws {
        let lowered = subject.lowercased()
        let mail = lowered.hasPrefix("mailto:") && subject.contains("@") && subject.count > 9
        let web = lowered.hasPrefix("https://") && subject.count > 8
        guard mail || web else { throw Failure.badSubject(subject) }
        keyBytes = key.rawRepresentation
        publicKey = Base64URL.encode(key.publicKey.x963Representation)
        self.subject = subject
    }

    /// The public key as the browser wants it for `applicationServerKey`: base64url of the uncompressed point.
    public let publicKey: String

    /// How long a token is valid: RFC 8292 allows up to 24 hours; 12 leaves room for clock skew.
    public static let lifetime: TimeInterval = 12 * 3600

    /// The `Authorization` header for a push to `endpoint`: `vapid t=<JWT>, k=<public key>`, the token's audience
    /// being the endpoint's origin.
    public func authorization(endpoint: String, now: Date = Date()) throws -> String {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host
        else { throw Failure.badEndpoint(endpoint) }
        let port = url.port.map { ":\($0)" } ?? ""
        let claims: [String: JWTClaim] = [
            "aud": .string("\(scheme)://\(host)\(port)"),
            "exp": .integer(Int(now.timeIntervalSince1970 + Self.lifetime)),
            "sub": .string(subject),
        ]
        let token = try ES256JWT.sign(header: ["typ": "JWT"], claims: claims, key: try P256.Signing.PrivateKey(rawRepresentation: keyBytes))
        return "vapid t=\(token), k=\(publicKey)"
    }
}
