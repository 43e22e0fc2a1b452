import Foundation
import PostgresNIO

/// `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]` (also `postgresql://`), as
/// `--database` and `$RALPH_MOBILE_DATABASE_URL` take it. The password is never shown (``redacted``).
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// TLS: `disable` (the default for a loopback host), `prefer`, or `require`.
    public var sslMode: String

    public init(_ text: String) throws(SQLError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw .badURL("expected postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else { throw .badURL("no host") }
        guard let user = components.user, !user.isEmpty else { throw .badURL("no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw .badURL("no database name") }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        let loopback = ["127.0.0.1", "localhost", "::1"].contains(host)
        sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? (loopback ? "disable" : "prefer")
        guard ["disable", "prefer", "require"].contains(sslMode) else { throw .badURL("sslmode must be disable, prefer or require") }
    }

    /// The URL without its password.
    public var redacted: String { "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)" }
    public var description: String { redacted }

    var tls: PostgresClient.Configuration.TLS {
        switch sslMode {
        case "disable": .disable
        case "require": .require(.makeClientConfiguration())
        default: .prefer(.makeClientConfiguration())
        }
    }

    var clientConfiguration: PostgresClient.Configuration {
        PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case "disable": .disable
            case "require": .require(try .init(configuration: .makeClientConfiguration()))
            default: .prefer(try .init(configuration: .makeClientConfiguration()))
            }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
