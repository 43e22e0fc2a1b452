/// What went wrong talking to a database, in words a log or an error answer can carry.
public enum SQLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A column held a value of another type than the code reads.
    case badValue(column: String, expected: String, found: SQLValue)
    /// The database refused a statement or could not be reached.
    case failed(String)
    /// A row names a row of another table that does not exist (a foreign key).
    case foreignKey(String)
    /// A row would repeat a value that must be unique.
    case unique(String)
    /// A database URL that cannot be used.
    case badURL(String)

    public var description: String {
        switch self {
        case .badValue(let column, let expected, let found): "column \(column) holds \(found), not \(expected)"
        case .failed(let reason): reason
        case .foreignKey(let reason): "no such row to refer to: \(reason)"
        case .unique(let reason): "already there: \(reason)"
        case .badURL(let reason): "bad database URL: \(reason)"
        }
    }
}
