import Foundation

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
