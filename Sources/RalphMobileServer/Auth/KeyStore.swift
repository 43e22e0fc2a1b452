import Crypto
import Foundation
import Logging
import RalphAPI
import RalphFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An API key as stored: only its SHA-256 digest is kept, never the key.
public struct StoredKey: Codable, Sendable, Equatable {
    /// Short public id (`k_` + 8 hex chars of the digest), used to list and revoke.
    public var id: String
    public var name: String?
    public var role: Role
    public var sha256: String
    public var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, name, role, sha256
        case createdAt = "created_at"
    }
}

/// The keys file (`<data-dir>/keys.json`, mode 0600): create, list, revoke, and constant-time lookups.
///
/// The server keeps the keys in memory and reloads the file when it changes (``reloadIfChanged()``, called from a
/// background task), so `keys create` and `keys revoke` take effect without a restart.
///
/// It fails closed: once the file cannot be read (permissions, a broken edit), no key from it is accepted — a key
/// revoked in the file the server can no longer read must not stay valid — until a reload succeeds again. The
/// failure is ``failure``; the server logs it and answers keyed requests `503 unavailable: …` meanwhile.
public final class KeyStore: Sendable {
    public enum KeyError: Error, CustomStringConvertible, Equatable {
        case unsafePermissions(path: String, mode: UInt32)
        case unreadable(path: String, reason: String)
        case notFound(String)
        case ambiguous(String)
        case writeFailed(String)

        public var description: String {
            switch self {
            case .unsafePermissions(let path, let mode):
                "\(path) is readable by other users (mode \(String(mode, radix: 8))); run: chmod 600 \(path)"
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .notFound(let id): "no key with id '\(id)'"
            case .ambiguous(let id): "'\(id)' matches several keys; give more of the id"
            case .writeFailed(let reason): "cannot write the keys file: \(reason)"
            }
        }
    }

    struct File: Codable {
        var keys: [StoredKey]
    }

    struct State {
        var keys: [StoredKey] = []
        var digests: [(digest: [UInt8], key: StoredKey)] = []
        var stamp: FileSystem.Status?
        /// Why the file could not be read at the last reload; no key is accepted while set.
        var failure: KeyError?
        /// The keys come from a cluster's database (``use(_:)``), not from the file.
        var shared = false
    }

    /// What a ``reloadIfChanged()`` did.
    public enum ReloadOutcome: Sendable, Equatable {
        /// The file did not change (and was readable).
        case unchanged
        /// The file changed and its keys are now the ones in use.
        case reloaded
        /// The file could not be read, where it could before (or for another reason than before): keys are refused.
        case failed(KeyError)
        /// The file still cannot be read, for the same reason as at the previous reload.
        case stillFailing(KeyError)
        /// The file can be read again after a failure; its keys are in use.
        case recovered
    }

    public let path: String
    private let state = Mutex(State())

    /// Opens the keys file at `path` (a missing file means no keys). Refuses a file others can read.
    public init(path: String) throws(KeyError) {
        self.path = path
        try reload()
    }

    /// The keys currently loaded.
    public var keys: [StoredKey] { state.withLock { $0.keys } }
    public var isEmpty: Bool { state.withLock { $0.keys.isEmpty } }
    /// Why the keys file cannot be read, nil while it can. No key from the file is accepted while this is set (the
    /// keys last read stay listed, so a server that needs keys keeps needing them).
    public var failure: KeyError? { state.withLock { $0.failure } }

    /// Reloads when the file's size, inode, mode or modification time changed — and, while the file cannot be read, at
    /// every call, so a fixed file is noticed however it was fixed. Blocking; call off the async runtime.
    @discardableResult
    public func reloadIfChanged() -> ReloadOutcome {
        if state.withLock({ $0.shared }) { return .unchanged }
        let current = FileSystem.status(path)
        let (previous, failed) = state.withLock { ($0.stamp, $0.failure) }
        guard current != previous || failed != nil else { return .unchanged }
        do {
            try reload()
            return failed == nil ? .reloaded : .recovered
        } catch {
            state.withLock {
                $0.failure = error
                $0.stamp = current
            }
            return failed == error ? .stillFailing(error) : .failed(error)
        }
    }

    func reload() throws(KeyError) {
        guard let status = FileSystem.status(path) else {
            state.withLock { $0 = State() }
            return
        }
        guard status.mode & 0o077 == 0 else { throw .unsafePermissions(path: path, mode: status.mode) }
        guard let bytes = FileSystem.readSmallFile(path, limit: 8 << 20) else { throw .unreadable(path: path, reason: "read failed") }
        let file: File
        do {
            file = try WireJSON.decode(File.self, from: Data(bytes))
        } catch {
            throw .unreadable(path: path, reason: "not a keys file (\(error))")
        }
        let digests = file.keys.compactMap { key in Self.hexBytes(key.sha256).map { (digest: $0, key: key) } }
        state.withLock { $0 = State(keys: file.keys, digests: digests, stamp: status) }
    }

    /// Uses `keys` (read from a cluster's database) from now on, instead of the file's.
    func use(_ keys: [StoredKey]) {
        let digests = keys.compactMap { key in Self.hexBytes(key.sha256).map { (digest: $0, key: key) } }
        state.withLock { $0 = State(keys: keys, digests: digests, stamp: nil, failure: nil, shared: true) }
    }

    /// A new key with `role` (and its secret, shown once), not stored yet.
    static func make(role: Role, name: String?) -> (key: StoredKey, secret: String) {
        let secret = generateSecret()
        let digest = SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
        return (StoredKey(id: "k_" + digest.prefix(8), name: name, role: role, sha256: digest, createdAt: Timestamp.now()), secret)
    }

    /// The stored key matching `presented`, compared in constant time against every key; none while the file cannot
    /// be read (``failure``).
    public func authenticate(_ presented: String) -> StoredKey? {
        let digest = Array(SHA256.hash(data: Data(presented.utf8)))
        return state.withLock { state in
            guard state.failure == nil else { return nil }
            var match: StoredKey?
            for entry in state.digests where Self.constantTimeEqual(entry.digest, digest) {
                match = entry.key
            }
            return match
        }
    }

    /// Creates a key with `role`; returns it with the secret, which is shown once and never stored.
    public func create(role: Role, name: String?) throws(KeyError) -> (key: StoredKey, secret: String) {
        let made = Self.make(role: role, name: name)
        try update { $0.append(made.key) }
        return made
    }

    /// Whether `id`, as a person typed it to revoke a key, names the key `keyID`: its whole id (with or without `k_`),
    /// or the start of it when at least ``minimumPrefix`` characters of the hex part are given — a shorter prefix could
    /// name a key nobody meant.
    public static func names(_ id: String, keyID: String) -> Bool {
        let full = id.hasPrefix("k_") ? id : "k_" + id
        if keyID == full { return true }
        return full.count - 2 >= minimumPrefix && keyID.hasPrefix(full)
    }

    /// Characters of a key id's hex part a prefix needs to revoke it.
    public static let minimumPrefix = 4

    /// Revokes the key ``names(_:keyID:)`` picks out: exactly one, else ``KeyError/notFound(_:)`` or
    /// ``KeyError/ambiguous(_:)``.
    public func revoke(_ id: String) throws(KeyError) -> StoredKey {
        var removed: StoredKey?
        var failure: KeyError?
        try update { keys in
            let matches = keys.filter { Self.names(id, keyID: $0.id) }
            if matches.count == 1 {
                removed = matches[0]
                keys.removeAll { $0.id == matches[0].id }
            } else {
                failure = matches.isEmpty ? .notFound(id) : .ambiguous(id)
            }
        }
        if let failure { throw failure }
        return removed!
    }

    /// Read-modify-write under an exclusive lock on `keys.json.lock`, written atomically with mode 0600
    /// (``PrivateFile``).
    private func update(_ change: (inout [StoredKey]) -> Void) throws(KeyError) {
        try PrivateFile.update(path, failure: KeyError.writeFailed) { () throws(KeyError) -> Data? in
            try reload()
            var keys = state.withLock { $0.keys }
            change(&keys)
            do {
                return try WireJSON.encodePretty(File(keys: keys))
            } catch {
                throw .writeFailed("\(error)")
            }
        }
        try reload()
    }

    /// `rmk_` followed by 40 random hex chars (160 bits).
    public static func generateSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "rmk_" + bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func hexBytes(_ hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count == 64 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for i in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: chars[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }

    /// Equal-length comparison that does not stop at the first difference.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}

extension KeyStore {
    /// Says what a reload did, once per change: a keys file that cannot be read is an error (keys are refused until
    /// it can), its recovery a notice.
    static func log(_ outcome: ReloadOutcome, path: String, logger: Logger) {
        switch outcome {
        case .unchanged, .stillFailing: break
        case .reloaded: logger.info("keys file reloaded", metadata: ["path": "\(path)"])
        case .failed(let error):
            logger.error("the keys file cannot be read; every key from it is refused until it can: \(error)", metadata: ["path": "\(path)"])
        case .recovered: logger.notice("the keys file can be read again; its keys are accepted", metadata: ["path": "\(path)"])
        }
    }
}
