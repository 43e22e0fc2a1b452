import Foundation
import GRDB

/// Schema changes by name, applied once each, in order, on either dialect; the names applied are kept in
/// `grdb_migrations` (the table GRDB's migrator kept, so an existing SQLite file goes on where it was).
public struct SQLMigrator: Sendable {
    /// One change: its name and its statements as SQLite says them (``SQLDialect/ddl(_:)`` translates them), or
    /// PostgreSQL's own when they differ more than that.
    public struct Migration: Sendable {
        public var name: String
        public var sqlite: String
        public var postgres: String?

        public init(_ name: String, sqlite: String, postgres: String? = nil) {
            self.name = name
            self.sqlite = sqlite
            self.postgres = postgres
        }

        func statements(for dialect: SQLDialect) -> [String] {
            let text = dialect == .postgres ? (postgres ?? dialect.ddl(sqlite)) : sqlite
            return SQLMigrator.split(text)
        }
    }

    public var migrations: [Migration]

    public init(_ migrations: [Migration]) {
        self.migrations = migrations
    }

    /// Applies what is missing; the names applied, in order. PostgreSQL instances sharing a database take an advisory
    /// lock, so two starting at once do not both migrate.
    @discardableResult
    public func migrate(_ database: any SQLDatabase) async throws -> [String] {
        let migrations = migrations
        return try await database.write { db in
            if db.dialect == .postgres { try await db.execute("SELECT pg_advisory_xact_lock(7261626)", []) }
            try await db.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)", [])
            let done = Set(try await db.query("SELECT identifier FROM grdb_migrations", []).map { try $0.string("identifier") })
            for migration in migrations where !done.contains(migration.name) {
                for statement in migration.statements(for: db.dialect) { try await db.execute(statement, []) }
                try await db.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(migration.name)])
            }
            let applied = Set(try await db.query("SELECT identifier FROM grdb_migrations", []).map { try $0.string("identifier") })
            return migrations.map(\.name).filter(applied.contains)
        }
    }

    /// The statements of a script, split at `;` line ends (the schema's statements end their lines with `;`).
    static func split(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            if line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                statements.append(current)
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { statements.append(current) }
        return statements.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }
}

extension SQLMigrator {
    /// The names applied to `database` that this build does not know (it was written by a newer server).
    public func unknownMigrations(_ database: any SQLDatabase) async throws -> [String] {
        let known = Set(migrations.map(\.name))
        let exists: Bool
        switch database.dialect {
        case .sqlite: exists = !(try await database.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")).isEmpty
        case .postgres: exists = !(try await database.query("SELECT 1 FROM pg_tables WHERE tablename = 'grdb_migrations'")).isEmpty
        }
        guard exists else { return [] }
        return try await database.query("SELECT identifier FROM grdb_migrations").map { try $0.string("identifier") }.filter { !known.contains($0) }
    }

    /// ``migrate(_:)`` for a SQLite file at startup, before anything async runs (blocking: GRDB's writer, one
    /// transaction); with `upTo`, only the migrations up to that one (an older schema, for tests of upgrades).
    public func migrate(sqlite: SQLiteDatabase, upTo last: String? = nil) throws {
        let wanted = last.flatMap { name in migrations.firstIndex { $0.name == name }.map { Array(migrations[...$0]) } } ?? migrations
        try sqlite.pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            let done = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
            for migration in wanted where !done.contains(migration.name) {
                for statement in migration.statements(for: .sqlite) { try db.execute(sql: statement) }
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.name])
            }
        }
    }

    /// The names applied to a SQLite file this build does not know, nil when it has none applied.
    public func unknownMigrations(sqlite: SQLiteDatabase) throws -> [String]? {
        let known = Set(migrations.map(\.name))
        return try sqlite.pool.read { db in
            guard try db.tableExists("grdb_migrations") else { return nil }
            return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").filter { !known.contains($0) }
        }
    }
}
