import Foundation
import GRDB

/// The embedded database: one SQLite file through GRDB (WAL; foreign keys on). A transaction's statements each run
/// on GRDB's writer connection in turn, between `BEGIN IMMEDIATE` and `COMMIT`, with the database's lock held so no
/// other transaction interleaves; reads run on GRDB's reader connections.
public final class SQLiteDatabase: SQLDatabase {
    public let dialect = SQLDialect.sqlite
    /// The GRDB pool, for what only SQLite does (its file, checkpoints).
    public let pool: DatabasePool
    private let writeLock = AsyncLock()

    /// Opens (creating) the file at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        // A transaction spans several accesses of the writer (one per statement); ``write(_:)`` keeps them together.
        configuration.allowsUnsafeTransactions = true
        pool = try DatabasePool(path: path, configuration: configuration)
    }

    public func write<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        try await writeLock.withLock {
            try await pool.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
            do {
                let result = try await body(Writer(pool: pool))
                try await finish("COMMIT")
                return result
            } catch {
                try? await finish("ROLLBACK")
                throw error
            }
        }
    }

    /// Ends the open transaction even when the calling task was cancelled (GRDB refuses a cancelled task's access,
    /// which would leave the transaction open and the file locked for every other writer).
    private func finish(_ statement: String) async throws {
        let pool = pool
        try await Task {
            try await pool.writeWithoutTransaction { db in if db.isInsideTransaction { try db.execute(sql: statement) } }
        }.value
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        try await body(Reader(pool: pool))
    }

    public func close() async {
        try? pool.close()
    }

    /// Statements of a write transaction, on the writer.
    struct Writer: SQLConnection {
        let pool: DatabasePool
        var dialect: SQLDialect { .sqlite }

        func execute(_ sql: String, _ arguments: [SQLValue]) async throws {
            try await SQLiteDatabase.classified {
                try await pool.writeWithoutTransaction { db in try db.execute(sql: sql, arguments: SQLiteDatabase.arguments(arguments)) }
            }
        }

        func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
            try await SQLiteDatabase.classified { try await pool.writeWithoutTransaction { db in try SQLiteDatabase.rows(db, sql, arguments) } }
        }
    }

    /// Statements outside a transaction, on a reader.
    struct Reader: SQLConnection {
        let pool: DatabasePool
        var dialect: SQLDialect { .sqlite }

        func execute(_ sql: String, _ arguments: [SQLValue]) async throws {
            throw SQLError.failed("a read cannot change the database: \(sql.prefix(60))")
        }

        func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
            try await pool.read { db in try SQLiteDatabase.rows(db, sql, arguments) }
        }
    }

    /// What went wrong, in SQLite's words when it was SQLite.
    public static func words(_ error: any Error) -> String {
        (error as? DatabaseError).map { $0.message ?? $0.description } ?? String(describing: error)
    }

    /// `body`'s constraint failures as ``SQLError/foreignKey(_:)`` and ``SQLError/unique(_:)``.
    static func classified<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            throw SQLError.foreignKey(error.message ?? "\(error)")
        } catch let error as DatabaseError
            where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
        {
            throw SQLError.unique(error.message ?? "\(error)")
        }
    }

    static func rows(_ db: Database, _ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        try Row.fetchAll(db, sql: sql, arguments: SQLiteDatabase.arguments(arguments)).map { row in
            SQLRow(columns: Array(row.columnNames), values: row.databaseValues.map(value))
        }
    }

    static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .int(let n): n
            case .double(let d): d
            case .text(let s): s
            case .bytes(let b): Data(b)
            }
        })
    }

    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let n): .int(n)
        case .double(let d): .double(d)
        case .string(let s): .text(s)
        case .blob(let data): .bytes(Array(data))
        }
    }
}
