import Foundation

/// The body of every error response: `{"error": "<prefix>: <detail>"}`.
///
/// Clients branch on the prefix (the text before the first `:`), so prefixes are part of the contract.
public struct ErrorResponse: Codable, Hashable, Sendable {
    public var error: String

    public init(error: String) {
        self.error = error
    }

    public init(prefix: ErrorPrefix, detail: String?) {
        if let detail, !detail.isEmpty {
            self.error = "\(prefix.rawValue): \(detail)"
        } else {
            self.error = prefix.rawValue
        }
    }

    /// The machine-readable prefix of ``error``.
    public var prefix: ErrorPrefix {
        let head = error.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return ErrorPrefix(rawValue: String(head).trimmingCharacters(in: .whitespaces))
    }

    /// The text after the prefix, if any.
    public var detail: String? {
        guard let colon = error.firstIndex(of: ":") else { return nil }
        return String(error[error.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
    }
}
