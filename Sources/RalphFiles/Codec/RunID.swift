/// Session ids: 16 lowercase hex chars, SipHash-1-3 (keys 0, 0) of the run file's absolute path.
///
/// This is the algorithm the original server used for its ids (Rust's `DefaultHasher` over a `str`: the UTF-8
/// bytes followed by one `0xFF` byte), applied to the run file instead of the `.ralph` directory. Ids are stable
/// across restarts as long as the path is.
public enum RunID {
    /// The id of the run stored at `absolutePath`. A server of a cluster gives its host id as `namespace`, so that runs
    /// at the same path on two machines have different ids; a server on its own gives none and keeps the ids it always had.
    public static func make(forPath absolutePath: String, namespace: String = "") -> String {
        var bytes = namespace.isEmpty ? [] : Array(namespace.utf8) + [0x00]
        bytes += Array(absolutePath.utf8)
        bytes.append(0xFF)
        let hash = SipHash13.hash(bytes)
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Whether `text` looks like a full session id.
    public static func isFullID(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy(isLowerHex)
    }

    /// Shortest id prefix accepted in routes.
    public static let minimumPrefixLength = 4

    static func isLowerHex(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f"))
    }
}

/// SipHash with 1 compression and 3 finalization rounds, as Rust's `DefaultHasher` (`SipHasher13`) computes it.
enum SipHash13 {
    static func hash(_ message: [UInt8], k0: UInt64 = 0, k1: UInt64 = 0) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1

        @inline(__always) func round() {
            v0 &+= v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
            v2 &+= v3; v3 = v3.rotatedLeft(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotatedLeft(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
        }

        let length = message.count
        let blocks = length / 8
        for b in 0..<blocks {
            var m: UInt64 = 0
            for i in 0..<8 { m |= UInt64(message[b * 8 + i]) << (8 * UInt64(i)) }
            v3 ^= m
            round()
            v0 ^= m
        }
        var last = UInt64(truncatingIfNeeded: length) << 56
        for i in 0..<(length % 8) { last |= UInt64(message[blocks * 8 + i]) << (8 * UInt64(i)) }
        v3 ^= last
        round()
        v0 ^= last
        v2 ^= 0xFF
        round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    @inline(__always) fileprivate func rotatedLeft(_ n: UInt64) -> UInt64 { (self << n) | (self >> (64 - n)) }
}
