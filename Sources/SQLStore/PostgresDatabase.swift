import Foundation
import Logging
import NIOCore
import PostgresNIO
import _ConnectionPoolModule

/// A shared PostgreSQL database through postgres-nio: a pool of connections (its background task runs until
/// ``close()``), transactions with `BEGIN` / `COMMIT`, and connections of its own for `LISTEN`.
public final class PostgresDatabase: SQLDatabase {
    public let dialect = SQLDialect.postgres
    public let url: DatabaseURL
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>
    /// This process's transactions run one at a time, as on SQLite (the stores count on it, e.g. to number a
    /// conversation's events); other processes sharing the database are kept apart by its constraints and locks.
    private let writeLock = AsyncLock()

    public init(url: DatabaseURL, logger: Logger, maximumConnections: Int = 20) {
        self.url = url
        self.logger = logger
        var configuration = url.clientConfiguration
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
    }

    public func write<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await writeLock.withLock {
            try await Self.failing {
                try await client.withTransaction(logger: logger) { connection in try await body(Connection(connection: connection, logger: logger)) }
            }
        }
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await Self.failing {
            try await client.withConnection { connection in try await body(Connection(connection: connection, logger: logger)) }
        }
    }

    public func close() async {
        running.cancel()
        await running.value
    }

    /// A new connection outside the pool (for `LISTEN`, which holds its connection); the caller closes it.
    public func connect() async throws -> PostgresConnection {
        try await Self.failing {
            try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: Int.random(in: 1...Int.max), logger: logger)
        }
    }

    /// Connects once, outside the pool, and says why that fails — at once, where the pool would keep retrying for a
    /// minute before giving up with no reason. For a clear error at startup.
    public func probe(timeout: Duration = .seconds(10)) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let connection = try await self.connect()
                try? await connection.close()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw SQLError.failed("no answer from \(self.url.host):\(self.url.port) within \(timeout)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// `body`'s errors as ``SQLError/failed(_:)`` with PostgreSQL's own words (postgres-nio hides them from
    /// `description`).
    static func failing<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            // The transaction's own error comes out as it was thrown (a store's error stays the store's).
            guard let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError else { throw error }
            if let psql = cause as? PSQLError { throw Self.classified(psql) }
            throw cause
        } catch let error as PSQLError {
            throw Self.classified(error)
        } catch let error as ConnectionPoolError {
            throw Self.classified(error)
        }
    }

    static func classified(_ error: ConnectionPoolError) -> SQLError {
        switch error {
        case .connectionCreationCircuitBreakerTripped:
            .failed("cannot connect to the database: every attempt failed (is it running, and are its host, port, user and password right?)")
        case .poolShutdown: .failed("the connections to the database are closed")
        default: .failed("the request for a database connection was cancelled")
        }
    }

    static func classified(_ error: PSQLError) -> SQLError {
        switch error.serverInfo?[.sqlState] {
        case "23503": .foreignKey(Self.words(error))
        case "23505": .unique(Self.words(error))
        default: .failed(Self.words(error))
        }
    }

    static func words(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] {
            return "postgres: " + message + (error.serverInfo?[.detail].map { " (\($0))" } ?? "")
        }
        return "postgres: \(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }

    /// One connection of a transaction or a read.
    struct Connection: SQLConnection {
        let connection: PostgresConnection
        let logger: Logger
        var dialect: SQLDialect { .postgres }

        func execute(_ sql: String, _ arguments: [SQLValue]) async throws {
            _ = try await query(sql, arguments)
        }

        func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
            let query = PostgresQuery(unsafeSQL: SQLDialect.postgres.placeholders(sql), binds: PostgresDatabase.binds(arguments))
            let rows = try await PostgresDatabase.failing { try await connection.query(query, logger: logger).collect() }
            return rows.map { row in
                var columns: [String] = []
                var values: [SQLValue] = []
                for cell in row {
                    columns.append(cell.columnName)
                    values.append(PostgresDatabase.value(cell))
                }
                return SQLRow(columns: columns, values: values)
            }
        }
    }

    static func binds(_ values: [SQLValue]) -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .int(let n): binds.append(n)
            case .double(let d): binds.append(d)
            case .text(let s): binds.append(s)
            case .bytes(let b): binds.append(ByteBuffer(bytes: b))
            }
        }
        return binds
    }

    static func value(_ cell: PostgresCell) -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: return (try? cell.decode(Int64.self)).map(SQLValue.int) ?? .null
        case .float4, .float8, .numeric: return (try? cell.decode(Double.self)).map(SQLValue.double) ?? .null
        case .bool: return (try? cell.decode(Bool.self)).map(SQLValue.bool) ?? .null
        case .bytea: return (try? cell.decode(ByteBuffer.self)).map { .bytes(Array($0.readableBytesView)) } ?? .null
        default: return (try? cell.decode(String.self)).map(SQLValue.text) ?? .null
        }
    }
}
