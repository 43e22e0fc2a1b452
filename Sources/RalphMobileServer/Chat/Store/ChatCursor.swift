import Foundation

/// The opaque page cursors of the chat lists.
///
/// A cursor is base64url (no padding) of a short versioned text naming the last item a page returned, by its place in
/// the list order, never by a timestamp alone, so items sharing a timestamp are neither skipped nor repeated:
///
/// - conversations: `c1:<position>:<last_activity_at>` — the next page is every row strictly after
///   `(last_activity_at, position)` in `last_activity_at DESC, position DESC` order;
/// - messages: `m1:<seq>` — "load earlier" returns messages with a smaller `seq`.
///
/// The kind prefix keeps one list's cursor from being accepted by the other.
enum ChatCursor {
    /// Where a conversation stands in the list order.
    struct ConversationKey: Hashable, Sendable {
        var lastActivityAt: String
        var position: Int
    }

    /// Longest cursor accepted; ours are well under 100 characters.
    private static let maxLength = 256

    /// The cursor of the page after the conversation at `key`.
    static func conversation(_ key: ConversationKey) -> String {
        encode("c1:\(key.position):\(key.lastActivityAt)")
    }

    /// Reads a conversation cursor; throws `invalid_parameter: cursor is not valid` for anything this type did not write.
    static func conversationKey(_ cursor: String) throws(APIError) -> ConversationKey {
        let invalid = APIError.invalidParameter("cursor is not valid")
        guard let text = decode(cursor) else { throw invalid }
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "c1", let position = Int(parts[1]), position > 0 else { throw invalid }
        let time = parts[2]
        guard !time.isEmpty, time.utf8.count <= 64, time.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw invalid
        }
        return ConversationKey(lastActivityAt: String(time), position: position)
    }

    /// The cursor of the messages before the one with `seq`.
    static func message(seq: Int) -> String {
        encode("m1:\(seq)")
    }

    /// Reads a message cursor; throws `invalid_parameter: before is not a valid cursor` for anything this type did not
    /// write.
    static func messageSeq(_ cursor: String) throws(APIError) -> Int {
        let invalid = APIError.invalidParameter("before is not a valid cursor")
        guard let text = decode(cursor) else { throw invalid }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "m1", let seq = Int(parts[1]), seq > 0 else { throw invalid }
        return seq
    }

    private static func encode(_ text: String) -> String {
        var base64 = Data(text.utf8).base64EncodedString()
        base64 = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while base64.hasSuffix("=") { base64.removeLast() }
        return base64
    }

    /// base64url (padding optional) → UTF-8 text, or nil.
    private static func decode(_ cursor: String) -> String? {
        guard !cursor.isEmpty, cursor.utf8.count <= maxLength else { return nil }
        guard cursor.utf8.allSatisfy({ isBase64URL($0) }) else { return nil }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.utf8.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return String(bytes: data, encoding: .utf8)
    }

    private static func isBase64URL(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
            true
        default: false
        }
    }
}
