import Foundation
import Logging
import RalphAPI
import SQLStore

/// API keys and the dashboard's logins of a cluster, in its database: one key works on every host, and revoking it
/// (or logging out) applies on every host within a second — at the notice, or at the next second's read without one.
///
/// At start, a host adds the keys of its own keys file, so the keys made with `ralph-mobile-server keys create` before
/// joining keep working; a key revoked in the cluster stays revoked even if a keys file still holds it.
final class SharedAuth: Sendable {
    let database: any SQLDatabase
    let keyStore: KeyStore
    let webSessions: WebSessionStore
    let logger: Logger

    init(database: any SQLDatabase, keyStore: KeyStore, webSessions: WebSessionStore, logger: Logger) {
        self.database = database
        self.keyStore = keyStore
        self.webSessions = webSessions
        self.logger = logger
    }

    /// Adds this host's file keys to the cluster's, then uses the cluster's.
    func start() async throws {
        try await Self.importKeys(keyStore.keys, into: database)
        try await load()
    }

    /// Reads the keys and live logins again.
    func load() async throws {
        keyStore.use(try await Self.keys(in: database))
        let now = Date().timeIntervalSince1970
        var sessions: [String: WebSessionStore.Session] = [:]
        for row in try await database.query("SELECT * FROM cluster_web_sessions WHERE expires_at > ?", [now]) {
            sessions[try row.string("digest")] = WebSessionStore.Session(
                keyID: try row.string("key_id"), keyFingerprint: try row.optionalString("key_fingerprint"), createdAt: try row.double("created_at"),
                expiresAt: try row.double("expires_at"))
        }
        webSessions.use(sessions)
    }

    func create(role: Role, name: String?) async throws -> (key: StoredKey, secret: String) {
        let made = try await Self.create(role: role, name: name, in: database)
        try await load()
        return made
    }

    /// Revokes the one key whose id is `id` or starts with it (and ends its logins); nil when none or several match.
    func revoke(_ id: String) async throws -> StoredKey? {
        let revoked = try await Self.revoke(id, in: database)
        try await load()
        return revoked
    }

    func login(keyID: String, keyFingerprint: String?) async throws -> String {
        let made = WebSessionStore.make(keyID: keyID, keyFingerprint: keyFingerprint)
        try await Self.changed(database) { db in
            try await db.execute("DELETE FROM cluster_web_sessions WHERE expires_at <= ?", made.session.createdAt)
            try await db.execute(
                "INSERT INTO cluster_web_sessions (digest, key_id, key_fingerprint, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [made.digest, made.session.keyID, made.session.keyFingerprint, made.session.createdAt, made.session.expiresAt])
        }
        try await load()
        return made.token
    }

    func logout(_ token: String) async throws -> Bool {
        let digest = WebSessionStore.digest(token)
        let ended = try await Self.changed(database) { db in
            !(try await db.query("DELETE FROM cluster_web_sessions WHERE digest = ? RETURNING digest", digest)).isEmpty
        }
        try await load()
        return ended
    }

    // MARK: - The keys, without a server (`ralph-mobile-server keys … --database`)

    /// The cluster's keys that are not revoked.
    static func keys(in database: any SQLDatabase) async throws -> [StoredKey] {
        try await database.query("SELECT * FROM cluster_keys WHERE revoked_at IS NULL ORDER BY created_at, id").map { row in
            let role = try row.string("role")
            guard let parsed = Role(rawValue: role) else { throw SQLError.badValue(column: "cluster_keys.role", expected: "a role", found: .text(role)) }
            return StoredKey(
                id: try row.string("id"), name: try row.optionalString("name"), role: parsed, sha256: try row.string("sha256"),
                createdAt: try row.string("created_at"))
        }
    }

    /// Adds `keys` unless the cluster already has them (revoked or not).
    static func importKeys(_ keys: [StoredKey], into database: any SQLDatabase) async throws {
        guard !keys.isEmpty else { return }
        try await changed(database) { db in
            for key in keys {
                try await db.execute(
                    "INSERT INTO cluster_keys (id, name, role, sha256, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    arguments: [key.id, key.name, key.role.rawValue, key.sha256, key.createdAt])
            }
        }
    }

    static func create(role: Role, name: String?, in database: any SQLDatabase) async throws -> (key: StoredKey, secret: String) {
        let made = KeyStore.make(role: role, name: name)
        try await changed(database) { db in
            try await db.execute(
                "INSERT INTO cluster_keys (id, name, role, sha256, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [made.key.id, made.key.name, made.key.role.rawValue, made.key.sha256, made.key.createdAt])
        }
        return made
    }

    static func revoke(_ id: String, in database: any SQLDatabase) async throws -> StoredKey? {
        let matches = try await keys(in: database).filter { KeyStore.names(id, keyID: $0.id) }
        if matches.count > 1 { throw KeyStore.KeyError.ambiguous(id) }
        guard matches.count == 1 else { return nil }
        let key = matches[0]
        try await changed(database) { db in
            try await db.execute("UPDATE cluster_keys SET revoked_at = ? WHERE id = ?", Timestamp.now(), key.id)
            try await db.execute("DELETE FROM cluster_web_sessions WHERE key_id = ?", key.id)
        }
        return key
    }

    /// Runs `change` with the notice that makes every host read again.
    @discardableResult
    private static func changed<T: Sendable>(
        _ database: any SQLDatabase, _ change: @escaping @Sendable (any SQLConnection) async throws -> T
    ) async throws -> T {
        try await database.write { db in
            let result = try await change(db)
            try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, ClusterNotice.keys.payload)
            return result
        }
    }
}
