/// Random ids in the real APIs' formats.
public enum Identifier {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// `prefix` and `length` random letters and digits: `msg_…`, `toolu_…`, `req_…`, `resp_…`, `call_…`.
    public static func make(_ prefix: String, length: Int = 24) -> String {
        var generator = SystemRandomNumberGenerator()
        var id = prefix
        for _ in 0..<length { id.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]) }
        return id
    }

    /// An opaque signature or encrypted blob (base64-looking; the clients only send it back).
    public static func signature() -> String {
        make("Eo", length: 86) + "=="
    }
}
