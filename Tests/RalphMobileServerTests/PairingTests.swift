import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Pairing a phone by QR code (issue 26): codes made by the admin API and by `ralph-mobile-server pair`, spent once by
/// `POST /api/pairing/exchange` for a new key of their role, against a real server on port 0; the QR codes are
/// libqrencode's and are read back by an independent decoder, `zbarimg` (Debian's zbar-tools).
@Suite("Pairing a phone by QR code")
struct PairingTests {
    static let adminKey = "rmk_pairing_tests_admin_0123456789abcdef"

    /// A server that requires keys (an admin `--api-key`), with its data directory.
    static func server(_ tmp: TemporaryDirectory) async throws -> LiveServer {
        try await LiveServer.start(workspaces: [tmp.subdirectory("ws")], dataDirectory: tmp.path + "/data") { $0.apiKey = adminKey }
    }

    static func post(_ server: LiveServer, _ path: String, _ body: String, key: String? = adminKey, headers: [(String, String)] = [])
        async throws -> HTTPResult
    {
        try await HTTP.request(server.base + path, method: .POST, headers: (key.map { [("X-Api-Key", $0)] } ?? []) + headers, body: body)
    }

    /// The `error` sentence of a JSON error body.
    static func error(_ result: HTTPResult) -> String {
        (result.object as? [String: Any])?["error"] as? String ?? result.text
    }

    // MARK: - QR codes

    /// Decodes a module matrix (quiet zone included) with `zbarimg`, from a PGM image with 6 pixels per module.
    static func zbar(_ rows: [[Bool]], in tmp: TemporaryDirectory) async throws -> String {
        let zbarimg = "/usr/bin/zbarimg"
        guard FileManager.default.isExecutableFile(atPath: zbarimg) else {
            throw TestFailure("zbarimg is not installed: apt-get install zbar-tools (.ci/run installs it)")
        }
        let scale = 6
        let height = rows.count * scale
        let width = (rows.first?.count ?? 0) * scale
        var image = Data("P5\n\(width) \(height)\n255\n".utf8)
        for row in rows {
            let line = row.flatMap { dark in Array(repeating: dark ? UInt8(0) : UInt8(255), count: scale) }
            for _ in 0..<scale { image.append(contentsOf: line) }
        }
        let file = tmp.path + "/qr-\(UUID().uuidString).pgm"
        try image.write(to: URL(fileURLWithPath: file))
        let decoded = try await Products.run(executable: zbarimg, ["--raw", "-q", file])
        guard decoded.status == 0 else { throw TestFailure("zbarimg read no QR code (status \(decoded.status)): \(decoded.stderr)") }
        return decoded.stdout.trimmingCharacters(in: .newlines)
    }

    /// The matrix with its quiet zone, as the terminal text and the SVG draw it.
    static func framed(_ qr: QRCode) -> [[Bool]] {
        let zone = QRCode.quietZone
        return (-zone..<qr.size + zone).map { y in (-zone..<qr.size + zone).map { x in qr.isDark(x: x, y: y) } }
    }

    /// Reads terminal text (half blocks, ANSI colours stripped) back into module rows.
    static func parseTerminal(_ text: String) -> [[Bool]] {
        let plain = text.replacingOccurrences(of: "\u{1B}[30;107m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        var rows: [[Bool]] = []
        for line in plain.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            let cells = Array(line)
            rows.append(cells.map { $0 == "█" || $0 == "▀" })
            rows.append(cells.map { $0 == "█" || $0 == "▄" })
        }
        return rows
    }

    /// Reads the SVG's path (`M x y h n v1 h-n z` per run of dark modules) back into module rows of `side` × `side`.
    static func parseSVG(_ svg: String, side: Int) throws -> [[Bool]] {
        var rows = Array(repeating: Array(repeating: false, count: side), count: side)
        let path = try #require(svg.range(of: "d=\"").flatMap { start in svg[start.upperBound...].split(separator: "\"").first })
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            let (x, y, length) = (numbers[0], numbers[1], numbers[2])
            for i in x..<x + length { rows[y][i] = true }
        }
        return rows
    }

    @Test("libqrencode's matrix decodes with zbarimg, and the terminal text and the SVG draw exactly that matrix")
    func qrCodes() async throws {
        let tmp = TemporaryDirectory()
        let url = "http://192.168.1.20:8080/pair#code=ABCD-EFGH-JKMN"
        let qr = try QRCode(encoding: url)
        #expect(qr.size >= 21 && (qr.size - 17) % 4 == 0, "a QR code's side is 17 + 4 × version")
        #expect(try await Self.zbar(Self.framed(qr), in: tmp) == url)

        let terminal = Self.parseTerminal(qr.terminalText())
        let framed = Self.framed(qr)
        // An odd number of rows leaves one half line of quiet zone below: light, as the zone is.
        #expect(Array(terminal.prefix(framed.count)) == framed)
        #expect(terminal.dropFirst(framed.count).allSatisfy { $0.allSatisfy { !$0 } })
        #expect(qr.terminalText().split(separator: "\n").allSatisfy { $0.hasPrefix("\u{1B}[30;107m") && $0.hasSuffix("\u{1B}[0m") },
            "dark on light on every terminal")
        #expect(!qr.terminalText(colors: false).contains("\u{1B}"))

        let svg = qr.svg(title: "a <title> & more")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.contains("<title>a &lt;title&gt; &amp; more</title>"))
        #expect(try Self.parseSVG(svg, side: framed.count) == framed)

        #expect(throws: QRCode.Failure.self) { try QRCode(encoding: "") }
        #expect(throws: QRCode.Failure.self) { try QRCode(encoding: String(repeating: "x", count: 3000)) }
    }

    // MARK: - The store

    @Test("codes: 12 characters of Crockford base32, only their digest stored, typed loosely, spent once, refused when expired")
    func store() throws {
        let tmp = TemporaryDirectory()
        let store = PairingStore(path: tmp.path + "/pairing.json")
        let made = try store.create(role: .operator, name: "phone", creatorRole: .admin)
        #expect(made.code.range(of: "^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$", options: .regularExpression) != nil)
        let file = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(!file.contains(made.code) && !file.contains(made.code.replacingOccurrences(of: "-", with: "")), "only the digest is stored")
        #expect(try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int == 0o600)

        // Lower case, spaces instead of dashes: the same code.
        let typed = made.code.lowercased().replacingOccurrences(of: "-", with: " ")
        let spent = try store.consume(typed)
        #expect(spent.role == .operator && spent.name == "phone" && spent.usedAt != nil)
        #expect {
            try store.consume(made.code)
        } throws: { error in
            guard case .used = error as? PairingStore.PairingError else { return false }
            return "\(error)".contains("already used")
        }

        let old = try store.create(role: .viewer, name: nil, creatorRole: .admin, lifetime: 60, now: Date().addingTimeInterval(-61))
        #expect {
            try store.consume(old.code)
        } throws: { error in
            guard case .expired = error as? PairingStore.PairingError else { return false }
            return "\(error)".contains("expired at")
        }
        #expect(throws: PairingStore.PairingError.unknown) { try store.consume("ZZZZ-ZZZZ-ZZZZ") }
        #expect(throws: PairingStore.PairingError.malformed) { try store.consume("not a code!") }
        #expect(throws: PairingStore.PairingError.malformed) { try store.consume("ABCD") }

        // Never wider than the creator, and only sensible lifetimes.
        #expect(throws: PairingStore.PairingError.roleTooWide(requested: .admin, creator: .operator)) {
            try store.create(role: .admin, name: nil, creatorRole: .operator)
        }
        #expect(throws: PairingStore.PairingError.badLifetime(5)) { try store.create(role: .viewer, name: nil, creatorRole: .admin, lifetime: 5) }
        #expect(try store.entries().count == 2, "a refused code is not stored")
    }

    // MARK: - The routes

    @Test("an admin makes a code; the exchange makes a key of that role and name that works; the code is refused the second time")
    func exchange() async throws {
        let tmp = TemporaryDirectory()
        let server = try await Self.server(tmp)
        defer { Task { await server.stop() } }

        let made = try await Self.post(server, "/api/pairing", #"{"role": "operator", "name": "my phone"}"#)
        #expect(made.status == 201, "\(made.text)")
        let pairing = try made.json(CreatedPairing.self)
        #expect(pairing.role == .operator && pairing.name == "my phone")
        // Asked through 127.0.0.1, from a server on loopback: that address, and a warning that a phone cannot use it.
        #expect(pairing.url == "http://127.0.0.1:\(server.port)/pair#code=\(pairing.code)")
        #expect(pairing.warning?.contains("loopback only") == true)
        let expires = try #require(Timestamp.parse(pairing.expiresAt))
        #expect(abs(expires.timeIntervalSinceNow - 300) < 30, "five minutes by default")
        #expect(try await Self.zbar(Self.parseSVG(pairing.qrSVG, side: Self.svgSide(pairing.qrSVG)), in: tmp) == pairing.url)
        #expect(made.headers["Cache-Control"].first == "no-store")

        // The phone: no key, only the code.
        let exchanged = try await Self.post(server, "/api/pairing/exchange", #"{"code": "\#(pairing.code)"}"#, key: nil)
        #expect(exchanged.status == 201, "\(exchanged.text)")
        let device = try exchanged.json(PairedDevice.self)
        let secret = try #require(device.secret)
        #expect(device.key.role == .operator && device.key.name == "my phone" && device.login == nil)

        let whoami = try await HTTP.get(server.base + "/api/whoami", headers: [("X-Api-Key", secret)])
        #expect(whoami.status == 200)
        let me = try whoami.json(WhoAmI.self)
        #expect(me.role == .operator && me.keyID == device.key.id)
        // An operator, not an admin.
        let forbidden = try await Self.post(server, "/api/keys", #"{"role": "viewer"}"#, key: secret)
        #expect(forbidden.status == 403)
        let keys = try String(contentsOfFile: tmp.path + "/data/keys.json", encoding: .utf8)
        #expect(keys.contains("my phone") && !keys.contains(secret), "the key is in the keys file, as its digest")

        let again = try await Self.post(server, "/api/pairing/exchange", #"{"code": "\#(pairing.code)"}"#, key: nil)
        #expect(again.status == 410)
        #expect(Self.error(again).hasPrefix("conflict: this pairing code was already used"))
    }

    /// The side of an SVG's square, from its view box.
    static func svgSide(_ svg: String) -> Int {
        svg.range(of: "viewBox=\"0 0 ").flatMap { Int(svg[$0.upperBound...].prefix { $0.isNumber }) } ?? 0
    }

    @Test("with login: true the browser gets the dashboard's session cookie and no secret; another origin cannot spend the code")
    func browserLogin() async throws {
        let tmp = TemporaryDirectory()
        let server = try await Self.server(tmp)
        defer { Task { await server.stop() } }
        let pairing = try await Self.post(server, "/api/pairing", #"{"role": "viewer", "expires_in": 120}"#).json(CreatedPairing.self)
        let body = #"{"code": "\#(pairing.code)", "login": true}"#

        let crossSite = try await Self.post(server, "/api/pairing/exchange", body, key: nil, headers: [("Origin", "http://evil.example")])
        #expect(crossSite.status == 403 && Self.error(crossSite) == "forbidden: cross-origin request")

        let exchanged = try await Self.post(server, "/api/pairing/exchange", body, key: nil, headers: [("Origin", server.base)])
        #expect(exchanged.status == 201, "the code was not spent by the refused request: \(exchanged.text)")
        let device = try exchanged.json(PairedDevice.self)
        #expect(device.secret == nil && device.login?.via == "cookie" && device.login?.role == .viewer)
        let cookie = try #require(exchanged.headers["Set-Cookie"].first)
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let token = try #require(cookie.split(separator: ";").first)
        let whoami = try await HTTP.get(server.base + "/api/whoami", headers: [("Cookie", String(token))])
        #expect(whoami.status == 200)
        let me = try whoami.json(WhoAmI.self)
        #expect(me.role == .viewer && me.via == "cookie" && me.keyID == device.key.id)
    }

    @Test("an expired code, an unknown one and bad requests get clear errors; ten wrong codes lock the address out with 429")
    func refusals() async throws {
        let tmp = TemporaryDirectory()
        let server = try await Self.server(tmp)
        defer { Task { await server.stop() } }
        let store = PairingStore(path: tmp.path + "/data/pairing.json")

        // A code made six minutes ago with the default five-minute lifetime.
        let old = try store.create(role: .operator, name: "late", creatorRole: .admin, now: Date().addingTimeInterval(-360))
        let expired = try await Self.post(server, "/api/pairing/exchange", #"{"code": "\#(old.code)"}"#, key: nil)
        #expect(expired.status == 410 && Self.error(expired).hasPrefix("conflict: this pairing code expired at"))

        let unknown = try await Self.post(server, "/api/pairing/exchange", #"{"code": "ZZZZ-ZZZZ-ZZZZ"}"#, key: nil)
        #expect(unknown.status == 404 && Self.error(unknown).contains("not known to this server"))
        let malformed = try await Self.post(server, "/api/pairing/exchange", #"{"code": "hello"}"#, key: nil)
        #expect(malformed.status == 400 && Self.error(malformed).contains("not a pairing code"))

        // Making codes: admins only, sensible lifetimes and URLs.
        let noKey = try await Self.post(server, "/api/pairing", #"{"role": "viewer"}"#, key: nil)
        #expect(noKey.status == 401)
        // A lifetime no Int can hold is refused in words, not a crash (schemathesis found it).
        let huge = try await Self.post(server, "/api/pairing", #"{"role": "viewer", "expires_in": -9.753266193179378e+307}"#)
        #expect(huge.status == 400 && huge.text.contains("30 seconds to 60 minutes"), "\(huge.status) \(huge.text)")
        let short = try await Self.post(server, "/api/pairing", #"{"role": "viewer", "expires_in": 5}"#)
        #expect(short.status == 400 && Self.error(short).contains("30 seconds to 60 minutes"))
        let badURL = try await Self.post(server, "/api/pairing", #"{"role": "viewer", "url": "ftp://x"}"#)
        #expect(badURL.status == 400 && Self.error(badURL).contains("not an http:// or https:// address"))
        let given = try await Self.post(server, "/api/pairing", #"{"role": "viewer", "url": "https://ralph.example.net/"}"#).json(CreatedPairing.self)
        #expect(given.url == "https://ralph.example.net/pair#code=\(given.code)" && given.warning == nil)
        let operatorKey = try server.server.keyStore.create(role: .operator, name: "op").secret
        let byOperator = try await Self.post(server, "/api/pairing", #"{"role": "operator"}"#, key: operatorKey)
        #expect(byOperator.status == 403 && Self.error(byOperator) == "forbidden: needs admin")

        // Two wrong codes above; eight more reach the limit of ten, then even the right code is refused, unspent.
        let good = try await Self.post(server, "/api/pairing", #"{"role": "viewer"}"#).json(CreatedPairing.self)
        for _ in 0..<8 {
            let wrong = try await Self.post(server, "/api/pairing/exchange", #"{"code": "ZZZZ-ZZZZ-ZZZ0"}"#, key: nil)
            #expect(wrong.status == 404)
        }
        let locked = try await Self.post(server, "/api/pairing/exchange", #"{"code": "\#(good.code)"}"#, key: nil)
        #expect(locked.status == 429)
        #expect(Self.error(locked).contains("wrong keys or pairing codes"))
        #expect(Int(locked.headers["Retry-After"].first ?? "") ?? 0 > 0)
        let entry = try #require(try store.entries().first { $0.sha256 == PairingStore.digest(of: PairingStore.normalise(good.code) ?? "") })
        #expect(entry.usedAt == nil, "a refused attempt does not spend the code")
    }

    // MARK: - The command line

    @Test("`pair` prints a QR code zbarimg reads, the URL and the code; the running server accepts the code once")
    func pairCommand() async throws {
        let tmp = TemporaryDirectory()
        let data = tmp.path + "/data"

        let noServer = try await Executable.run(["pair", "--data-dir", data])
        #expect(noServer.status == 1 && noServer.stderr.contains("no running server found"), "\(noServer.stderr)")
        let badRole = try await Executable.run(["pair", "--role", "root", "--data-dir", data])
        #expect(badRole.status != 0 && badRole.stderr.contains("--role must be admin, operator or viewer"))
        let badURL = try await Executable.run(["pair", "--url", "192.168.1.20", "--data-dir", data])
        #expect(badURL.status != 0 && badURL.stderr.contains("not an http:// or https:// address"))

        // With --url, no server needed: the code waits in the data directory.
        let given = try await Executable.run(["pair", "--url", "http://192.0.2.7:8080", "--role", "viewer", "--name", "tablet", "--data-dir", data])
        #expect(given.status == 0, "\(given.stderr)")
        let link = try #require(given.stdout.split(separator: "\n").first { $0.hasPrefix("Scan with") }.flatMap { $0.split(separator: " ").last })
        #expect(link.hasPrefix("http://192.0.2.7:8080/pair#code="))
        #expect(given.stdout.contains("Pairs as: viewer key \"tablet\"") && given.stdout.contains("single use"))
        let qrText = given.stdout.components(separatedBy: "\n\n").first ?? ""
        #expect(try await Self.zbar(Self.parseTerminal(qrText), in: tmp) == String(link))
        let code = String(link.split(separator: "=").last ?? "")
        #expect(!(try String(contentsOfFile: data + "/pairing.json", encoding: .utf8)).contains(code))

        // The server of that data directory: `pair` finds its address, and the codes of both runs work there.
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("ws")], dataDirectory: data) { $0.apiKey = Self.adminKey }
        defer { Task { await server.stop() } }
        let found = try await Executable.run(["pair", "--plain", "--expires", "2", "--data-dir", data])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("Scan with the phone's camera, or open: http://127.0.0.1:\(server.port)/pair#code="))
        #expect(found.stdout.contains("2 minutes") && found.stdout.contains("Pairs as: operator key \"phone\""))
        #expect(found.stderr.contains("warning: the server listens on loopback only"))
        #expect(!found.stdout.contains("\u{1B}"), "--plain has no colours")

        let first = try await Self.post(server, "/api/pairing/exchange", #"{"code": "\#(code)"}"#, key: nil)
        #expect(first.status == 201, "\(first.text)")
        let device = try first.json(PairedDevice.self)
        #expect(device.key.role == .viewer && device.key.name == "tablet")
        let works = try await HTTP.get(server.base + "/api/sessions", headers: [("X-Api-Key", device.secret ?? "")])
        #expect(works.status == 200)
        let second = try await Self.post(server, "/api/pairing/exchange", #"{"code": "\#(code)"}"#, key: nil)
        #expect(second.status == 410 && Self.error(second).contains("already used"))
    }
}
