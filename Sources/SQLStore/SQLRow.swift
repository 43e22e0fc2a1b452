/// One row a query returned: its values by column name, read with typed accessors that throw ``SQLError/badValue``
/// instead of trapping when a column holds something else.
public struct SQLRow: Sendable, Hashable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column` (NULL when the row has no such column).
    public subscript(column: String) -> SQLValue {
        guard let index = columns.firstIndex(of: column) else { return .null }
        return values[index]
    }

    public func string(_ column: String) throws(SQLError) -> String {
        guard let value = try optionalString(column) else { throw .badValue(column: column, expected: "text", found: .null) }
        return value
    }

    public func optionalString(_ column: String) throws(SQLError) -> String? {
        switch self[column] {
        case .null: return nil
        case .text(let text): return text
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        case let other: throw .badValue(column: column, expected: "text", found: other)
        }
    }

    public func int(_ column: String) throws(SQLError) -> Int {
        guard let value = try optionalInt(column) else { throw .badValue(column: column, expected: "integer", found: .null) }
        return value
    }

    public func optionalInt(_ column: String) throws(SQLError) -> Int? {
        switch self[column] {
        case .null: return nil
        case .int(let value): return Int(value)
        case .double(let value) where value == value.rounded() && abs(value) < 9e15: return Int(value)
        case .text(let text) where Int(text) != nil: return Int(text)
        case let other: throw .badValue(column: column, expected: "integer", found: other)
        }
    }

    public func int64(_ column: String) throws(SQLError) -> Int64 { Int64(try int(column)) }

    public func double(_ column: String) throws(SQLError) -> Double {
        guard let value = try optionalDouble(column) else { throw .badValue(column: column, expected: "number", found: .null) }
        return value
    }

    public func optionalDouble(_ column: String) throws(SQLError) -> Double? {
        switch self[column] {
        case .null: return nil
        case .double(let value): return value
        case .int(let value): return Double(value)
        case let other: throw .badValue(column: column, expected: "number", found: other)
        }
    }

    /// A boolean stored as 0/1.
    public func bool(_ column: String) throws(SQLError) -> Bool {
        guard let value = try optionalInt(column) else { throw .badValue(column: column, expected: "0 or 1", found: .null) }
        return value != 0
    }

    public func bytes(_ column: String) throws(SQLError) -> [UInt8] {
        switch self[column] {
        case .bytes(let bytes): return bytes
        case .text(let text): return Array(text.utf8)
        case let other: throw .badValue(column: column, expected: "bytes", found: other)
        }
    }
}
