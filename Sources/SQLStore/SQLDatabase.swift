/// A SQL database the stores use the same way whether it is the embedded SQLite file or a shared PostgreSQL: statements
/// are written once, with `?` placeholders, in the SQL both understand (upserts with `ON CONFLICT`, no dialect
/// functions); ``SQLDialect`` translates table definitions and placeholders.
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws. Transactions of one
    /// database run one at a time.
    func write<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T
    /// Runs `body` with a connection for reads (no transaction; each statement sees what is committed).
    func read<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T
    /// Closes the database; later calls fail.
    func close() async
}

extension SQLDatabase {
    /// The rows of one read statement.
    public func query(_ sql: String, _ arguments: [any SQLBindable] = []) async throws -> [SQLRow] {
        let values = arguments.map(\.sqlValue)
        return try await read { try await $0.query(sql, values) }
    }

    /// The first row of one read statement, if any.
    public func first(_ sql: String, _ arguments: [any SQLBindable] = []) async throws -> SQLRow? {
        try await query(sql, arguments).first
    }
}

/// A connection inside ``SQLDatabase/write(_:)`` or ``SQLDatabase/read(_:)``.
public protocol SQLConnection: Sendable {
    var dialect: SQLDialect { get }
    /// Runs a statement (to know which rows it changed, end it with `RETURNING` and use ``query(_:_:)``).
    func execute(_ sql: String, _ arguments: [SQLValue]) async throws
    /// Runs a statement that returns rows.
    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow]
}

extension SQLConnection {
    public func execute(_ sql: String, _ arguments: any SQLBindable...) async throws {
        try await execute(sql, arguments.map(\.sqlValue))
    }

    public func query(_ sql: String, _ arguments: any SQLBindable...) async throws -> [SQLRow] {
        try await query(sql, arguments.map(\.sqlValue))
    }

    public func first(_ sql: String, _ arguments: any SQLBindable...) async throws -> SQLRow? {
        try await query(sql, arguments.map(\.sqlValue)).first
    }
}

/// Which SQL a database speaks, where the two differ.
public enum SQLDialect: Sendable, Hashable {
    case sqlite, postgres

    /// `sql` with its `?` placeholders numbered (`$1`, `$2` …) for PostgreSQL. Placeholders are never written inside
    /// string literals of the stores' SQL; `?` inside a quoted literal is left alone all the same.
    public func placeholders(_ sql: String) -> String {
        guard self == .postgres, sql.contains("?") else { return sql }
        var out = ""
        out.reserveCapacity(sql.utf8.count + 8)
        var n = 0
        var quoted = false
        for c in sql {
            if c == "'" { quoted.toggle() }
            if c == "?" && !quoted {
                n += 1
                out += "$\(n)"
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// Table definitions written for SQLite, as this dialect says them: for PostgreSQL, `INTEGER PRIMARY KEY
    /// AUTOINCREMENT` is a `BIGSERIAL` key, integers are 64-bit, `REAL` is `DOUBLE PRECISION`, `BLOB` is `BYTEA`, and
    /// `WITHOUT ROWID` goes.
    public func ddl(_ sqlite: String) -> String {
        guard self == .postgres else { return sqlite }
        var text = sqlite
        let replacements: [(String, String)] = [
            ("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY"), (" INTEGER", " BIGINT"), (" REAL", " DOUBLE PRECISION"),
            (" BLOB", " BYTEA"), (") WITHOUT ROWID", ")"),
        ]
        for (from, to) in replacements { text = text.replacingOccurrences(of: from, with: to) }
        return text
    }
}
