/// `POST /api/pairing` body: a single-use code that pairs one device as a new key of `role`.
public struct CreatePairingRequest: Codable, Hashable, Sendable {
    public var role: Role
    /// The name the new key gets (say, `phone`).
    public var name: String?
    /// The server's address as the phone reaches it (`http://192.168.1.20:8080`); default: the address this request
    /// was sent to, or, from a loopback address, one of the server's own network addresses.
    public var url: String?
    /// How long the code is valid, 30–3600 s (default 300).
    public var expiresIn: Double?

    public init(role: Role, name: String? = nil, url: String? = nil, expiresIn: Double? = nil) {
        self.role = role
        self.name = name
        self.url = url
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case role, name, url
        case expiresIn = "expires_in"
    }
}

/// `POST /api/pairing` answer: the code (shown once), the pairing page's URL with the code in its fragment, and the
/// same URL as a QR code. The key itself is made only when the code is exchanged, and is never in the QR code.
public struct CreatedPairing: Codable, Hashable, Sendable {
    /// `XXXX-XXXX-XXXX`, for typing on the device when it cannot scan.
    public var code: String
    /// `<server>/pair#code=<code>`: what the QR code holds.
    public var url: String
    public var role: Role
    public var name: String?
    /// RFC 3339.
    public var expiresAt: String
    /// The URL as a QR code, a standalone SVG image.
    public var qrSVG: String
    /// Why the URL may not be reachable from a phone (the server listens on loopback only), nil when nothing is known
    /// to be wrong.
    public var warning: String?

    public init(code: String, url: String, role: Role, name: String?, expiresAt: String, qrSVG: String, warning: String?) {
        self.code = code
        self.url = url
        self.role = role
        self.name = name
        self.expiresAt = expiresAt
        self.qrSVG = qrSVG
        self.warning = warning
    }

    enum CodingKeys: String, CodingKey {
        case code, url, role, name, warning
        case expiresAt = "expires_at"
        case qrSVG = "qr_svg"
    }
}

/// `POST /api/pairing/exchange` body.
public struct PairingExchangeRequest: Codable, Hashable, Sendable {
    public var code: String
    /// Log this browser in (a session cookie, as `POST /api/login` sets) instead of answering the key's secret: what
    /// the web pairing page asks for. An app leaves it out and stores the secret.
    public var login: Bool?

    public init(code: String, login: Bool? = nil) {
        self.code = code
        self.login = login
    }
}

/// `POST /api/pairing/exchange` answer: the new key, and either its secret (shown once) or the login it opened.
public struct PairedDevice: Codable, Hashable, Sendable {
    public var key: APIKeyInfo
    /// The key, for an app to store; absent when the browser was logged in instead.
    public var secret: String?
    /// The browser's login (`via: cookie`), when `login` was asked for.
    public var login: WhoAmI?

    public init(key: APIKeyInfo, secret: String?, login: WhoAmI?) {
        self.key = key
        self.secret = secret
        self.login = login
    }
}
