/// Why a byte sequence is not a JSON document.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset where parsing stopped.
    public let offset: Int
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}
