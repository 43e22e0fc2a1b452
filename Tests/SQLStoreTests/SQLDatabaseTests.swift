import Foundation
import SQLStore
import Testing
import TestSupport
import Logging

/// The SQL layer on both databases: the same statements, the same results.
@Suite("One SQL layer on SQLite and PostgreSQL", .serialized)
struct SQLDatabaseTests {
    static let schema = SQLMigrator([
        .init(
            "v1",
            sqlite: """
                CREATE TABLE items (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    count INTEGER NOT NULL,
                    ratio REAL,
                    flag INTEGER NOT NULL DEFAULT 0,
                    data BLOB
                );
                """),
        .init("v2", sqlite: "ALTER TABLE items ADD COLUMN note TEXT;"),
    ])

    /// Runs `body` on a fresh SQLite file and on a fresh PostgreSQL database.
    static func onBoth(_ body: (any SQLDatabase) async throws -> Void) async throws {
        let tmp = TemporaryDirectory()
        let sqlite = try SQLiteDatabase(path: tmp.path + "/test.sqlite")
        try await body(sqlite)
        await sqlite.close()
        let server = try await PostgresServer.shared()
        let postgres = PostgresDatabase(url: try DatabaseURL(try await server.makeDatabase()), logger: Logger(label: "test.sql"))
        do {
            try await body(postgres)
        } catch {
            await postgres.close()
            throw error
        }
        await postgres.close()
    }

    @Test("migrations apply once, in order; upserts, reads, bytes, booleans and RETURNING read the same on both")
    func roundTrip() async throws {
        try await Self.onBoth { db in
            #expect(try await Self.schema.migrate(db) == ["v1", "v2"])
            #expect(try await Self.schema.migrate(db) == ["v1", "v2"], "\(db.dialect): nothing applied twice")
            try await db.write { c in
                for (id, count) in [("a", 1), ("b", 2)] {
                    try await c.execute(
                        "INSERT INTO items (id, count, ratio, flag, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET count = excluded.count",
                        id, count, 0.5, true, [UInt8]([0, 1, 255]))
                }
                try await c.execute("INSERT INTO items (id, count) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET count = excluded.count", "a", 7)
            }
            let rows = try await db.query("SELECT * FROM items ORDER BY seq")
            #expect(try rows.map { try $0.string("id") } == ["a", "b"])
            #expect(try rows.map { try $0.int("count") } == [7, 2])
            #expect(try rows[0].bool("flag") && rows[0].double("ratio") == 0.5 && rows[0].bytes("data") == [0, 1, 255])
            #expect(try rows[0].optionalString("note") == nil && rows[0].int("seq") == 1 && rows[1].int("seq") == 2)
            let removed = try await db.write { c in try await c.query("DELETE FROM items WHERE id = ? RETURNING id", "b") }
            #expect(try removed.map { try $0.string("id") } == ["b"])
        }
    }

    @Test("a transaction that throws leaves nothing behind; transactions run one at a time")
    func transactions() async throws {
        struct Boom: Error {}
        try await Self.onBoth { db in
            try await Self.schema.migrate(db)
            await #expect(throws: (any Error).self) {
                try await db.write { c in
                    try await c.execute("INSERT INTO items (id, count) VALUES (?, ?)", "x", 1)
                    throw Boom()
                }
            }
            #expect(try await db.query("SELECT id FROM items").isEmpty, "\(db.dialect): rolled back")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        try await db.write { c in
                            let n = try await c.first("SELECT COUNT(*) AS n FROM items")?.int("n") ?? 0
                            try await c.execute("INSERT INTO items (id, count) VALUES (?, ?)", "i\(i)", n)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let counts = try await db.query("SELECT count FROM items ORDER BY count").map { try $0.int("count") }
            #expect(counts == Array(0..<20), "\(db.dialect): each saw the ones before it")
        }
    }

    @Test("a transaction whose task is cancelled half-way is rolled back and leaves the database writable, here and for other connections")
    func cancelledTransaction() async throws {
        try await Self.onBoth { db in
            try await Self.schema.migrate(db)
            let inside = AsyncStream<Void>.makeStream()
            let task = Task {
                try await db.write { c in
                    try await c.execute("INSERT INTO items (id, count) VALUES (?, ?)", "half", 1)
                    inside.continuation.yield()
                    // Cancelled here: the next statement is refused, and the transaction must not stay open.
                    while !Task.isCancelled { try await Task.sleep(for: .milliseconds(5)) }
                    try await c.execute("INSERT INTO items (id, count) VALUES (?, ?)", "never", 2)
                }
            }
            var started = inside.stream.makeAsyncIterator()
            _ = await started.next()
            task.cancel()
            let outcome = await task.result
            #expect(throws: (any Error).self, "\(db.dialect): the cancelled transaction fails") { try outcome.get() }
            #expect(try await db.query("SELECT id FROM items").isEmpty, "\(db.dialect): rolled back")
            try await db.write { c in try await c.execute("INSERT INTO items (id, count) VALUES (?, ?)", "after", 3) }
            #expect(try await db.query("SELECT id FROM items").map { try $0.string("id") } == ["after"], "\(db.dialect): still writable")
            if let sqlite = db as? SQLiteDatabase {
                // Another connection to the file (another process, a tool) is not locked out either.
                let other = try SQLiteDatabase(path: sqlite.pool.path)
                try await other.write { c in try await c.execute("INSERT INTO items (id, count) VALUES (?, ?)", "other", 4) }
                await other.close()
            }
        }
    }

    @Test("placeholders are numbered for PostgreSQL, never inside quotes; table definitions are translated")
    func dialect() {
        #expect(SQLDialect.postgres.placeholders("SELECT ? , '?' , ?") == "SELECT $1 , '?' , $2")
        #expect(SQLDialect.sqlite.placeholders("SELECT ?") == "SELECT ?")
        #expect(SQLDialect.postgres.ddl("id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER, r REAL, b BLOB) WITHOUT ROWID;")
            == "id BIGSERIAL PRIMARY KEY, n BIGINT, r DOUBLE PRECISION, b BYTEA);")
    }

    @Test("database URLs: the parts, the password never shown, bad ones refused in words")
    func urls() throws {
        let url = try DatabaseURL("postgres://ralph:s%40cret@db.example:6543/ralph?sslmode=require")
        #expect(url.host == "db.example" && url.port == 6543 && url.user == "ralph" && url.password == "s@cret" && url.database == "ralph")
        #expect(url.sslMode == "require" && url.redacted == "postgres://ralph:***@db.example:6543/ralph")
        #expect(try DatabaseURL("postgresql://u@localhost/d").sslMode == "disable")
        for bad in ["mysql://u@h/d", "postgres://h/d", "postgres://u@h/", "postgres://u@h/d?sslmode=maybe"] {
            #expect(throws: SQLError.self) { try DatabaseURL(bad) }
        }
    }
}
