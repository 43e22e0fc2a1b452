import Logging
import RalphAPI
import SQLStore

/// The API keys of a cluster, managed without a server: `ralph-mobile-server keys … --database postgres://…`. Every
/// running host of the cluster picks a change up within a second.
public struct ClusterKeys: Sendable {
    private let database: PostgresDatabase

    private init(database: PostgresDatabase) {
        self.database = database
    }

    /// Connects to the cluster's database (bringing its schema up to date, as a server would), runs `body`, closes.
    public static func with<T: Sendable>(databaseURL: String, _ body: (ClusterKeys) async throws -> T) async throws(StartupError) -> T {
        let url: DatabaseURL
        do {
            url = try DatabaseURL(databaseURL)
        } catch {
            throw StartupError("--database: \(error)")
        }
        var logger = Logger(label: "ralph-mobile.keys")
        logger.logLevel = .warning
        let database = PostgresDatabase(url: url, logger: logger, maximumConnections: 2)
        do {
            try await database.probe()
            _ = try await ChatStore.connect(database, named: url.redacted)
            let result = try await body(ClusterKeys(database: database))
            await database.close()
            return result
        } catch let error as StartupError {
            await database.close()
            throw error
        } catch {
            await database.close()
            throw StartupError("cannot use the database \(url.redacted): \(error)")
        }
    }

    public func keys() async throws -> [StoredKey] {
        try await SharedAuth.keys(in: database)
    }

    public func create(role: Role, name: String?) async throws -> (key: StoredKey, secret: String) {
        try await SharedAuth.create(role: role, name: name, in: database)
    }

    /// The key revoked; nil when no key matches `id` (``KeyStore/names(_:keyID:)``); throws `KeyStore.KeyError.ambiguous` when several do.
    public func revoke(_ id: String) async throws -> StoredKey? {
        try await SharedAuth.revoke(id, in: database)
    }
}
