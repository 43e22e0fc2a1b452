import Foundation

/// A Swift value a column can be read as (`NULL` only into an optional), for ``SQLRow/decode(_:forColumn:)``.
public protocol SQLDecodable {
    static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> Self
}

extension SQLRow {
    /// The value of `column` as `T`, e.g. `let title: String = try row.decode(forColumn: "title")`.
    public func decode<T: SQLDecodable>(_ type: T.Type = T.self, forColumn column: String) throws(SQLError) -> T {
        try T.decode(sqlValue: self[column], column: column)
    }

    /// The value of `column` as the type the context wants: `let id: String = try row["id"]`.
    public subscript<T: SQLDecodable>(column: String) -> T {
        get throws(SQLError) { try decode(forColumn: column) }
    }
}

extension String: SQLDecodable {
    public static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> String {
        switch value {
        case .text(let text): return text
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        default: throw .badValue(column: column, expected: "text", found: value)
        }
    }
}

extension Int: SQLDecodable {
    public static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> Int {
        switch value {
        case .int(let n): return Int(n)
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: return Int(d)
        default: throw .badValue(column: column, expected: "integer", found: value)
        }
    }
}

extension Int64: SQLDecodable {
    public static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> Int64 {
        Int64(try Int.decode(sqlValue: value, column: column))
    }
}

extension Double: SQLDecodable {
    public static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> Double {
        switch value {
        case .double(let d): return d
        case .int(let n): return Double(n)
        default: throw .badValue(column: column, expected: "number", found: value)
        }
    }
}

/// Stored as 0/1.
extension Bool: SQLDecodable {
    public static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> Bool {
        try Int.decode(sqlValue: value, column: column) != 0
    }
}

extension Data: SQLDecodable {
    public static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> Data {
        switch value {
        case .bytes(let bytes): return Data(bytes)
        case .text(let text): return Data(text.utf8)
        default: throw .badValue(column: column, expected: "bytes", found: value)
        }
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public static func decode(sqlValue value: SQLValue, column: String) throws(SQLError) -> Wrapped? {
        value.isNull ? nil : try Wrapped.decode(sqlValue: value, column: column)
    }
}

extension SQLConnection {
    /// Runs a statement with arguments of any bindable types (`nil` optionals as NULL).
    public func execute(_ sql: String, arguments: [any SQLBindable]) async throws {
        try await execute(sql, arguments.map(\.sqlValue))
    }

    /// Runs a query with arguments of any bindable types.
    public func query(_ sql: String, arguments: [any SQLBindable]) async throws -> [SQLRow] {
        try await query(sql, arguments.map(\.sqlValue))
    }

    /// The first row of a query with arguments of any bindable types.
    public func first(_ sql: String, arguments: [any SQLBindable]) async throws -> SQLRow? {
        try await query(sql, arguments.map(\.sqlValue)).first
    }
}
