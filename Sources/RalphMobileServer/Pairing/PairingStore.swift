import Crypto
import Foundation
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Single-use pairing codes (issue 26): `<data-dir>/pairing.json`, mode 0600, written by the server's
/// `POST /api/pairing` and by `ralph-mobile-server pair` (a separate process), read and consumed by the server's
/// `POST /api/pairing/exchange`.
///
/// The file is the only place the codes live, and every change — making a code, spending one — is a
/// read-modify-write under an exclusive `flock` on `pairing.json.lock`: the CLI and the server (and two requests of
/// one server) never lose each other's changes, and a code is spent exactly once. Nothing is cached, so a code the
/// CLI just wrote works at once, with no reload loop.
///
/// Only each code's SHA-256 is stored. A spent or expired code is kept (as its digest) for a day, so that trying it
/// again says "already used" or "expired" rather than "unknown"; then it is forgotten.
public final class PairingStore: Sendable {
    /// Why a code could not be made or spent. Each says what to do next.
    public enum PairingError: Error, CustomStringConvertible, Equatable {
        /// The code is not of the form a pairing code has (letters and digits, 12 once dashes and spaces are gone).
        case malformed
        /// No code with that digest: mistyped, made for another server, or forgotten long after it expired.
        case unknown
        case used(at: String)
        case expired(at: String)
        /// A creator asked for a role above their own.
        case roleTooWide(requested: Role, creator: Role)
        case badLifetime(TimeInterval)
        case tooManyPending(Int)
        case unreadable(String)
        case writeFailed(String)

        public var description: String {
            switch self {
            case .malformed:
                "that is not a pairing code (12 letters and digits, like ABCD-EFGH-JKMN); check what you typed"
            case .unknown:
                "that pairing code is not known to this server: check it, or ask for a new one (codes belong to the server that made them)"
            case .used(let at): "this pairing code was already used (at \(at)); each code pairs one device: ask for a new one"
            case .expired(let at): "this pairing code expired at \(at); ask for a new one"
            case .roleTooWide(let requested, let creator):
                "a \(creator.rawValue) cannot make a pairing code for the wider role \(requested.rawValue)"
            case .badLifetime(let seconds):
                // (Formatted, never converted to Int: a huge or non-finite number would trap.)
                "a pairing code must be valid for 30 seconds to 60 minutes, not \(seconds) seconds"
            case .tooManyPending(let count):
                "\(count) pairing codes are waiting to be used already; use or let some expire (\(Int(PairingStore.defaultLifetime / 60)) minutes) first"
            case .unreadable(let reason): "cannot read the pairing codes: \(reason)"
            case .writeFailed(let reason): "cannot write the pairing codes: \(reason)"
            }
        }
    }

    /// One code as stored: its digest, what it pairs as, and whether it was spent.
    public struct Entry: Codable, Sendable, Equatable {
        /// SHA-256 of the normalised code, hex.
        public var sha256: String
        public var role: Role
        /// The name the new key gets.
        public var name: String?
        public var createdAt: Double
        public var expiresAt: Double
        /// When the code was spent; nil while it can still be used.
        public var usedAt: Double?
        /// The id of the key the code was traded for.
        public var keyID: String?

        enum CodingKeys: String, CodingKey {
            case sha256, role, name
            case createdAt = "created_at"
            case expiresAt = "expires_at"
            case usedAt = "used_at"
            case keyID = "key_id"
        }
    }

    struct File: Codable {
        var codes: [Entry]
    }

    /// How long a code is valid unless the creator says otherwise.
    public static let defaultLifetime: TimeInterval = 5 * 60
    /// The lifetimes a creator may ask for.
    public static let lifetimes: ClosedRange<TimeInterval> = 30...3600
    /// How long a spent or expired code is remembered (to say so when it is tried again).
    static let memory: TimeInterval = 24 * 3600
    /// Codes waiting to be used, at most.
    static let pendingLimit = 50
    /// Crockford's base32: no I, L, O or U, so a code read aloud or typed is hard to get wrong.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// Characters of a code: 12 × 5 = 60 random bits.
    static let length = 12

    public let path: String

    /// The store at `path` (`<data-dir>/pairing.json`); nothing is read until it is used.
    public init(path: String) {
        self.path = path
    }

    /// Makes a code for a key of `role` named `name`, valid for `lifetime` seconds from `now`. `creatorRole` is the role
    /// of whoever asks: a code never pairs a wider role than that. Returns the code (shown once, `XXXX-XXXX-XXXX`) and
    /// its entry. Blocking (file lock and write).
    public func create(
        role: Role, name: String?, creatorRole: Role, lifetime: TimeInterval = PairingStore.defaultLifetime, now: Date = Date()
    ) throws(PairingError) -> (code: String, entry: Entry) {
        guard creatorRole.includes(role) else { throw .roleTooWide(requested: role, creator: creatorRole) }
        guard Self.lifetimes.contains(lifetime) else { throw .badLifetime(lifetime) }
        let code = Self.generateCode()
        let time = now.timeIntervalSince1970
        let entry = Entry(
            sha256: Self.digest(of: Self.normalise(code) ?? ""), role: role, name: name, createdAt: time, expiresAt: time + lifetime)
        try update(now: time) { codes throws(PairingError) in
            let pending = codes.filter { $0.usedAt == nil && $0.expiresAt > time }.count
            guard pending < Self.pendingLimit else { throw .tooManyPending(pending) }
            codes.append(entry)
        }
        return (Self.display(code), entry)
    }

    /// Spends `presented`: the entry it was made with, marked used at `now`, once; every later try gets ``PairingError/used(at:)``.
    /// Blocking (file lock and write).
    public func consume(_ presented: String, now: Date = Date()) throws(PairingError) -> Entry {
        guard let normalised = Self.normalise(presented) else { throw .malformed }
        let digest = Self.digest(of: normalised)
        let time = now.timeIntervalSince1970
        var spent: Entry?
        try update(now: time) { codes throws(PairingError) in
            // Digests are compared in constant time, each of them, so the time taken says nothing about a near miss.
            var index: Int?
            for (i, entry) in codes.enumerated() where KeyStore.constantTimeEqual(Array(entry.sha256.utf8), Array(digest.utf8)) {
                index = i
            }
            guard let index else { throw .unknown }
            let entry = codes[index]
            if let usedAt = entry.usedAt { throw .used(at: Timestamp.format(Date(timeIntervalSince1970: usedAt))) }
            guard entry.expiresAt > time else { throw .expired(at: Timestamp.format(Date(timeIntervalSince1970: entry.expiresAt))) }
            codes[index].usedAt = time
            spent = codes[index]
        }
        guard let spent else { throw .unknown }
        return spent
    }

    /// Records which key a spent code became (shown nowhere yet; for whoever reads the file). Blocking.
    public func record(keyID: String, for entry: Entry) throws(PairingError) {
        try update(now: Date().timeIntervalSince1970) { codes throws(PairingError) in
            if let index = codes.firstIndex(where: { $0.sha256 == entry.sha256 }) { codes[index].keyID = keyID }
        }
    }

    /// The codes as stored (digests only). Blocking.
    public func entries() throws(PairingError) -> [Entry] {
        try read()
    }

    // MARK: - Codes

    /// A new code: 12 characters of Crockford's base32 from the system's random generator.
    static func generateCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// `ABCDEFGHJKMN` as `ABCD-EFGH-JKMN`, easier to read out and type.
    static func display(_ code: String) -> String {
        let chars = Array(code)
        return stride(from: 0, to: chars.count, by: 4).map { String(chars[$0..<min($0 + 4, chars.count)]) }.joined(separator: "-")
    }

    /// A typed or scanned code in its stored form: upper case, dashes and spaces dropped, and the letters Crockford's
    /// base32 reads as digits (`O` → `0`, `I` and `L` → `1`) mapped; nil when it cannot be a code.
    static func normalise(_ text: String) -> String? {
        guard text.utf8.count <= 64 else { return nil }
        var out = ""
        for character in text.uppercased() {
            switch character {
            case "-", " ", "\t": continue
            case "O": out.append("0")
            case "I", "L": out.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                out.append(character)
            }
        }
        return out.count == length ? out : nil
    }

    static func digest(of normalised: String) -> String {
        SHA256.hash(data: Data(normalised.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: - The file

    private func read() throws(PairingError) -> [Entry] {
        guard let status = FileSystem.status(path) else { return [] }
        guard status.mode & 0o077 == 0 else {
            throw .unreadable("\(path) can be read by other users (mode \(String(status.mode & 0o777, radix: 8))); run: chmod 600 \(path)")
        }
        guard let bytes = FileSystem.readSmallFile(path, limit: 4 << 20) else { throw .unreadable("cannot read \(path)") }
        do {
            return try WireJSON.decode(File.self, from: Data(bytes)).codes
        } catch {
            throw .unreadable("\(path) is not a pairing codes file (\(error)); delete it to forget every code")
        }
    }

    /// Read-modify-write under an exclusive lock on `pairing.json.lock`; codes long expired or spent are forgotten on
    /// the way; written atomically with mode 0600. `change` may throw to leave the file as it was.
    private func update(now: Double, _ change: (inout [Entry]) throws(PairingError) -> Void) throws(PairingError) {
        try PrivateFile.update(path, failure: PairingError.writeFailed) { () throws(PairingError) -> Data? in
            var codes = try read().filter { max($0.expiresAt, $0.usedAt ?? 0) + Self.memory > now }
            try change(&codes)
            do {
                return try WireJSON.encodePretty(File(codes: codes))
            } catch {
                throw .writeFailed("\(error)")
            }
        }
    }
}
