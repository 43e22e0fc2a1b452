/// What an API key given to the server (`--api-key`, `RALPH_MOBILE_API_KEY`) must be to be accepted.
///
/// A key is the only thing between the network and an admin who can start processes, so a key that can be guessed
/// is refused at startup rather than served: at least ``minimumLength`` characters, at least ``minimumDistinct``
/// different ones (no `aaaaaaaaaaaaaaaa`), no control characters, and no whitespace at either end (HTTP trims it from
/// header values, so such a key could never be presented). Keys made by `keys create` (`rmk_` and 40 hex characters)
/// always qualify.
///
/// The rule applies on every address, loopback included: a key on a loopback server is there to keep other users and
/// programs of the machine out, and a weak one does not; a server that needs no key runs without one (trusted
/// loopback).
public enum APIKeyPolicy {
    public static let minimumLength = 16
    public static let minimumDistinct = 8

    /// Why `key` is too weak to serve, or nil when it is acceptable.
    public static func weakness(of key: String) -> String? {
        let scalars = Array(key.unicodeScalars)
        if scalars.allSatisfy({ $0.properties.isWhitespace }) { return "it is empty or only whitespace" }
        if let first = scalars.first, let last = scalars.last, first.properties.isWhitespace || last.properties.isWhitespace {
            return "it starts or ends with whitespace, which HTTP drops from header values"
        }
        if scalars.contains(where: { $0.properties.generalCategory == .control }) { return "it contains control characters" }
        if scalars.count < minimumLength { return "it is \(scalars.count) character\(scalars.count == 1 ? "" : "s") long; at least \(minimumLength) are needed" }
        let distinct = Set(scalars).count
        if distinct < minimumDistinct {
            return "it uses only \(distinct) different characters; at least \(minimumDistinct) are needed"
        }
        return nil
    }

    /// The sentence the server refuses to start with; `source` names where the key came from.
    public static func refusal(_ weakness: String, source: String) -> String {
        """
        refusing the API key from \(source): \(weakness). Use a key of at least \(minimumLength) characters with at \
        least \(minimumDistinct) different ones, e.g. `openssl rand -hex 20`, or create one with \
        `ralph-mobile-server keys create --role admin` (no --api-key needed then).
        """
    }
}
