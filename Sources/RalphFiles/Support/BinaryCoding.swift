import Foundation

/// A compact, versioned binary encoding for the catalog's on-disk index: variable-length integers, length-prefixed
/// UTF-8 strings, raw IEEE doubles. No reflection, so a thousand run states encode and decode in milliseconds.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ value: Int) {
        // Zig-zag, then LEB128.
        var v = UInt64(bitPattern: Int64((value << 1) ^ (value >> 63)))
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func write(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func write(_ value: Double) {
        var bits = value.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            write(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func write(bytes raw: [UInt8]) {
        write(raw.count)
        bytes.append(contentsOf: raw)
    }

    mutating func write(_ value: String?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ value: Int?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ value: Double?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ value: Bool?) {
        bytes.append(value == nil ? 2 : value! ? 1 : 0)
    }

    mutating func write(_ value: Date?) {
        write(value?.timeIntervalSince1970)
    }
}

/// Reads what ``BinaryWriter`` wrote; every read checks bounds and throws ``BinaryReader/Malformed`` instead of
/// trapping, so a damaged index file is rejected, never trusted.
struct BinaryReader {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private let bytes: [UInt8]
    private(set) var position: Int

    init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var isAtEnd: Bool { position == bytes.count }

    mutating func readUInt64() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw Malformed(description: "truncated integer") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw Malformed(description: "integer too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    mutating func readInt() throws(Malformed) -> Int {
        let v = try readUInt64()
        return Int(Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1))))
    }

    /// A count or length: non-negative and no larger than the bytes left (each element takes at least one byte).
    mutating func readCount() throws(Malformed) -> Int {
        let n = try readInt()
        guard n >= 0, n <= bytes.count - position else { throw Malformed(description: "bad length \(n)") }
        return n
    }

    mutating func readBool() throws(Malformed) -> Bool {
        guard position < bytes.count else { throw Malformed(description: "truncated flag") }
        let b = bytes[position]
        position += 1
        guard b <= 1 else { throw Malformed(description: "bad flag \(b)") }
        return b == 1
    }

    mutating func readDouble() throws(Malformed) -> Double {
        guard bytes.count - position >= 8 else { throw Malformed(description: "truncated number") }
        var bits: UInt64 = 0
        for k in 0..<8 { bits |= UInt64(bytes[position + k]) << (8 * UInt64(k)) }
        position += 8
        return Double(bitPattern: bits)
    }

    mutating func readString() throws(Malformed) -> String {
        let n = try readCount()
        let s = String(decoding: bytes[position..<position + n], as: UTF8.self)
        position += n
        return s
    }

    mutating func readBytes() throws(Malformed) -> [UInt8] {
        let n = try readCount()
        let b = Array(bytes[position..<position + n])
        position += n
        return b
    }

    mutating func readOptionalString() throws(Malformed) -> String? {
        try readBool() ? try readString() : nil
    }

    mutating func readOptionalInt() throws(Malformed) -> Int? {
        try readBool() ? try readInt() : nil
    }

    mutating func readOptionalDouble() throws(Malformed) -> Double? {
        try readBool() ? try readDouble() : nil
    }

    mutating func readOptionalBool() throws(Malformed) -> Bool? {
        guard position < bytes.count else { throw Malformed(description: "truncated flag") }
        let b = bytes[position]
        position += 1
        switch b {
        case 0: return false
        case 1: return true
        case 2: return nil
        default: throw Malformed(description: "bad optional flag \(b)")
        }
    }

    mutating func readDate() throws(Malformed) -> Date? {
        try readOptionalDouble().map(Date.init(timeIntervalSince1970:))
    }
}
