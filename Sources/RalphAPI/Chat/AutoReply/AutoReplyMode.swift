/// How the loop decides to stop. One canonical spelling on the wire; the app we replace also wrote `smartStop`,
/// `timed`/`timeBased`, `message_count`/`messageBased` and `untilCompletion`, which are accepted on input.
public enum AutoReplyMode: String, Codable, Hashable, Sendable, CaseIterable {
    /// Stop when the completion confidence reaches `min_confidence`.
    case smartStop = "smart_stop"
    /// Stop only on an explicit completion signal (`LOOP_COMPLETE`, "task complete"); limits still apply.
    case untilCompletion = "until_completion"
    /// Stop after `max_minutes` (1 min – 8 h).
    case timeBased = "time_based"
    /// Stop after `max_messages` auto-replies (1 – 100).
    case messageBased = "message_based"
    /// The first met of time, messages and completion.
    case hybrid

    /// Every spelling accepted on input, mapped to its mode.
    public static let aliases: [String: AutoReplyMode] = [
        "smart_stop": .smartStop, "smartStop": .smartStop, "smart-stop": .smartStop,
        "until_completion": .untilCompletion, "untilCompletion": .untilCompletion,
        "time_based": .timeBased, "timeBased": .timeBased, "timed": .timeBased,
        "message_based": .messageBased, "messageBased": .messageBased, "message_count": .messageBased, "messageCount": .messageBased,
        "hybrid": .hybrid,
    ]

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let mode = Self.aliases[raw] else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "unknown mode '\(raw.prefix(40))'; use one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            )
        }
        self = mode
    }
}
