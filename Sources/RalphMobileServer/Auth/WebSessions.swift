import Crypto
import Foundation
import RalphAPI
import RalphFiles
import Synchronization

/// Browser logins of the web dashboard: a key typed once becomes an `HttpOnly`, `SameSite=Strict` cookie holding a
/// random session token. Only the token's SHA-256 is kept, in `<data-dir>/web-sessions.json` (0600), so a session
/// survives a server restart (the dashboard resumes its streams without asking again) and logging out really ends it.
///
/// A session remembers which key opened it, not a role: each request looks the key up again, so revoking a key or
/// changing its role takes effect on the next request of every browser it logged in.
public final class WebSessionStore: Sendable {
    public struct Session: Codable, Sendable, Equatable {
        /// Id of the key that logged in (`cli` for `--api-key`).
        public var keyID: String
        /// For `cli`: a digest of the key, so a changed `--api-key` ends old sessions.
        public var keyFingerprint: String?
        public var createdAt: Double
        public var expiresAt: Double

        enum CodingKeys: String, CodingKey {
            case keyID = "key_id"
            case keyFingerprint = "key_fingerprint"
            case createdAt = "created_at"
            case expiresAt = "expires_at"
        }
    }

    struct File: Codable {
        var sessions: [String: Session]
    }

    public static let cookieName = "ralph_session"
    /// How long a login lasts.
    public static let lifetime: TimeInterval = 30 * 24 * 3600
    /// Logins kept at most; the oldest go first.
    static let capacity = 1000

    public let path: String
    private let sessions: Mutex<[String: Session]>

    /// Opens the store at `path`; a missing file is an empty store, an unreadable one is refused (with the reason).
    public init(path: String) throws(StartupError) {
        self.path = path
        guard let status = FileSystem.status(path) else {
            sessions = Mutex([:])
            return
        }
        guard status.mode & 0o077 == 0 else {
            throw StartupError("\(path) can be read by other users (mode \(String(status.mode & 0o777, radix: 8))); run `chmod 600 \(path)`")
        }
        guard let bytes = FileSystem.readSmallFile(path, limit: 16 << 20) else {
            throw StartupError("cannot read \(path); delete it to log every browser out")
        }
        let file: File
        do {
            file = try WireJSON.decode(File.self, from: Data(bytes))
        } catch {
            throw StartupError("\(path) is not a web sessions file (\(error)); delete it to log every browser out")
        }
        let now = Date().timeIntervalSince1970
        sessions = Mutex(file.sessions.filter { $0.value.expiresAt > now })
    }

    /// Starts a session for `keyID`; returns the token for the cookie. Blocking (writes the file).
    public func create(keyID: String, keyFingerprint: String?, now: Date = Date()) throws -> String {
        let made = Self.make(keyID: keyID, keyFingerprint: keyFingerprint, now: now)
        let time = now.timeIntervalSince1970
        try sessions.withLock { sessions throws in
            var next = sessions.filter { $0.value.expiresAt > time }
            if next.count >= Self.capacity, let oldest = next.min(by: { $0.value.createdAt < $1.value.createdAt }) {
                next[oldest.key] = nil
            }
            next[made.digest] = made.session
            // Written under the lock so two logins cannot overwrite each other's file; memory follows the file.
            try write(next)
            sessions = next
        }
        return made.token
    }

    /// The live session a cookie's token belongs to.
    public func session(for token: String, now: Date = Date()) -> Session? {
        guard token.utf8.count == 64 else { return nil }
        let digest = Self.digest(token)
        return sessions.withLock { sessions in
            guard let session = sessions[digest], session.expiresAt > now.timeIntervalSince1970 else { return nil }
            return session
        }
    }

    /// Ends the session of `token`; true if there was one. Blocking (writes the file).
    @discardableResult
    public func end(_ token: String) throws -> Bool {
        let digest = Self.digest(token)
        return try sessions.withLock { sessions throws -> Bool in
            guard sessions[digest] != nil else { return false }
            var next = sessions
            next[digest] = nil
            try write(next)
            sessions = next
            return true
        }
    }

    public var count: Int { sessions.withLock { $0.count } }

    /// Uses `sessions` (by token digest, read from a cluster's database) from now on.
    func use(_ shared: [String: Session]) {
        sessions.withLock { $0 = shared }
    }

    /// A new token and its session, not stored yet: the token for the cookie, the digest to store it under.
    static func make(keyID: String, keyFingerprint: String?, now: Date = Date()) -> (token: String, digest: String, session: Session) {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let time = now.timeIntervalSince1970
        return (token, digest(token), Session(keyID: keyID, keyFingerprint: keyFingerprint, createdAt: time, expiresAt: time + lifetime))
    }

    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Atomic replace with mode 0600.
    private func write(_ snapshot: [String: Session]) throws {
        let data = try WireJSON.encode(File(sessions: snapshot))
        let temp = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw StartupError("cannot write \(temp)")
        }
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw StartupError("cannot replace \(path): \(reason)")
        }
    }
}
