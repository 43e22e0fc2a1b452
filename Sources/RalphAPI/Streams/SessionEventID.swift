/// The `id:` of a session stream frame: `<line>:<check>`, the event's line number in its run file and 8 hex digits
/// checking what that line holds (``check(ts:topic:)``). On resume the server reads that line again: a different check
/// means the file was replaced or rewritten since, and the client gets a `reset` frame and the new file from its start
/// instead of silently missing its first lines. A bare `<line>` (older clients, `?after=`) is still accepted.
public struct SessionEventID: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var check: UInt32?

    public init(line: Int, check: UInt32?) {
        self.line = line
        self.check = check
    }

    /// Parses `17:3fa2c901` or `17`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let line = Int(parts[0]), line >= 0 else { return nil }
        self.line = line
        if parts.count == 2 {
            guard parts[1].count == 8, let check = UInt32(parts[1], radix: 16) else { return nil }
            self.check = check
        } else {
            self.check = nil
        }
    }

    public var description: String {
        guard let check else { return String(line) }
        let hex = String(check, radix: 16)
        return "\(line):" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// FNV-1a over an event's `ts` and `topic`: timestamps are written to the nanosecond, so a line of a replaced or
    /// rewritten file differs from the line it replaced.
    public static func check(ts: String?, topic: String) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in (ts ?? "").utf8 + [0x1F] + topic.utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash
    }
}
