/// Event topics clients may emit: non-empty, at most 128 characters, letters, digits, `.`, `_`, `-`.
public enum Topic {
    public static let maxLength = 128

    /// Why `topic` is not acceptable, or nil when it is.
    public static func problem(with topic: String) -> String? {
        if topic.isEmpty { return "topic is empty" }
        if topic.count > maxLength { return "topic is longer than \(maxLength) characters" }
        let allowed = topic.unicodeScalars.allSatisfy { c in
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "." || c == "_" || c == "-"
        }
        return allowed ? nil : "topic may contain only letters, digits, '.', '_' and '-'"
    }
}
