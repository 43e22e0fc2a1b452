import Foundation

/// The layout of an index entry, summary first:
///
///     magic "RMIDX\0" + layout version (2 bytes, little-endian)      8 bytes
///     summary section length (UInt64, little-endian)                  8 bytes
///     summary section checksum (UInt64, little-endian)                8 bytes
///     summary section: versions, the file's identity and offset, its head and end bytes, the checkpoints, the
///                      details section's length and checksum, then the fold with empty details (its list fields)
///     details section: the whole fold (``RunState/encode(into:)``)
///
/// A restart reads the header and the summary section of each entry (about a kilobyte) and checks the entry's size
/// against both lengths, so a truncated entry is rejected without reading its details; the details of a finished run
/// are read, and their checksum checked, only when they are asked for.
extension RunIndexStore {
    /// Bumped with any change to the layout (``RunState/encodingVersion`` is checked on its own).
    static let version: UInt16 = 2
    /// Version 1 had "RMIDX" followed by its checksum: the version in the magic rejects it (and any other layout).
    static let magic: [UInt8] = Array("RMIDX".utf8) + [0, UInt8(truncatingIfNeeded: version), UInt8(truncatingIfNeeded: version >> 8)]
    static let headerSize = 24
    /// Read at once at a restart: the header and, nearly always, the whole summary section.
    static let summaryReadSize = 4096

    static func encode(_ entry: Entry) -> [UInt8] {
        var details = BinaryWriter(capacity: 16 << 10)
        entry.state.encode(into: &details)
        var summary = BinaryWriter(capacity: 1 << 10)
        summary.write(Int(version))
        summary.write(RunState.encodingVersion)
        summary.write(entry.file)
        summary.write(entry.device)
        summary.write(entry.inode)
        summary.write(entry.offset)
        summary.write(bytes: entry.head)
        summary.write(bytes: entry.tail)
        summary.write(entry.checkpoints.count)
        var previous = 0
        for c in entry.checkpoints {
            summary.write(c - previous)
            previous = c
        }
        summary.write(details.bytes.count)
        summary.write(checksum(details.bytes))
        encodeSummary(entry.state.summary, into: &summary)
        var out = magic
        out.reserveCapacity(headerSize + summary.bytes.count + details.bytes.count)
        appendWord(UInt64(summary.bytes.count), to: &out)
        appendWord(checksum(summary.bytes), to: &out)
        out.append(contentsOf: summary.bytes)
        out.append(contentsOf: details.bytes)
        return out
    }

    /// The list fields, as the fold's own encoding with empty details (so they can never differ from the details
    /// section's, field for field, whatever the fold's layout becomes).
    static func encodeSummary(_ summary: RunSummary, into w: inout BinaryWriter) {
        RunState(summary: summary, details: RunDetails()).encode(into: &w)
    }

    /// What the header and the summary section say, and where the details section is.
    struct Front {
        var summary: SummaryEntry
        var detailsStart: Int
        var detailsLength: Int
        var detailsChecksum: UInt64
    }

    /// Reads the header and the summary section from `prefix`, the first bytes of an entry of `fileSize` bytes (at
    /// least the header and the summary section; more is ignored).
    static func decodeFront(_ prefix: [UInt8], fileSize: Int) throws(IndexError) -> Front {
        guard prefix.count >= magic.count, fileSize >= prefix.count, prefix[0..<5].elementsEqual(magic[0..<5]) else {
            throw .malformed("not an index file")
        }
        guard prefix[0..<magic.count].elementsEqual(magic) else { throw .malformed("another version") }
        guard prefix.count >= headerSize else { throw .malformed("truncated header") }
        let length = word(prefix, at: 8)
        let stored = word(prefix, at: 16)
        guard length <= UInt64(fileSize - headerSize) else { throw .malformed("truncated summary") }
        let summaryEnd = headerSize + Int(length)
        guard summaryEnd <= prefix.count else { throw .malformed("summary not read whole") }
        let sectionBytes = Array(prefix[headerSize..<summaryEnd])
        guard checksum(sectionBytes) == stored else { throw .malformed("summary checksum mismatch") }
        var r = BinaryReader(sectionBytes)
        do {
            guard try r.readInt() == Int(version), try r.readInt() == RunState.encodingVersion else { throw IndexError.malformed("another version") }
            let file = try r.readString()
            let device = try r.readUInt64()
            let inode = try r.readUInt64()
            let offset = try r.readInt()
            let head = try r.readBytes()
            let tail = try r.readBytes()
            var checkpoints: [Int] = []
            var previous = 0
            let count = try r.readCount()
            checkpoints.reserveCapacity(count)
            for _ in 0..<count {
                previous += try r.readInt()
                checkpoints.append(previous)
            }
            let detailsLength = try r.readInt()
            let detailsChecksum = try r.readUInt64()
            let summary = try RunState(decoding: &r).summary
            guard r.isAtEnd else { throw IndexError.malformed("trailing bytes in the summary") }
            guard detailsLength >= 0, detailsLength == fileSize - summaryEnd else { throw IndexError.malformed("truncated or overlong details") }
            guard offset >= 0, checkpoints.first == 0, summary.lineCount >= 0,
                checkpoints.count == (max(summary.lineCount - 1, 0) / RunSnapshot.checkpointInterval) + 1
            else { throw IndexError.malformed("inconsistent offsets") }
            return Front(
                summary: SummaryEntry(file: file, device: device, inode: inode, offset: offset, head: head, tail: tail, checkpoints: checkpoints, summary: summary),
                detailsStart: summaryEnd, detailsLength: detailsLength, detailsChecksum: detailsChecksum
            )
        } catch let error as IndexError {
            throw error
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// The list part of an entry: `prefix` holds its first bytes (at least the header and the summary section).
    static func decodeSummary(_ prefix: [UInt8], fileSize: Int) throws(IndexError) -> SummaryEntry {
        try decodeFront(prefix, fileSize: fileSize).summary
    }

    /// A whole entry, details included.
    static func decode(_ bytes: [UInt8]) throws(IndexError) -> Entry {
        let front = try decodeFront(bytes, fileSize: bytes.count)
        let section = Array(bytes[front.detailsStart..<front.detailsStart + front.detailsLength])
        guard checksum(section) == front.detailsChecksum else { throw .malformed("details checksum mismatch") }
        var r = BinaryReader(section)
        let state: RunState
        do {
            state = try RunState(decoding: &r)
        } catch {
            throw .malformed("\(error)")
        }
        guard r.isAtEnd else { throw .malformed("trailing bytes in the details") }
        // Both sections were written from one fold: the list fields agree exactly.
        var listed = BinaryWriter()
        encodeSummary(front.summary.summary, into: &listed)
        var folded = BinaryWriter()
        encodeSummary(state.summary, into: &folded)
        guard listed.bytes == folded.bytes else { throw .malformed("the summary and the details disagree") }
        let s = front.summary
        return Entry(file: s.file, device: s.device, inode: s.inode, offset: s.offset, head: s.head, tail: s.tail, checkpoints: s.checkpoints, state: state)
    }

    private static func appendWord(_ value: UInt64, to out: inout [UInt8]) {
        var v = value.littleEndian
        withUnsafeBytes(of: &v) { out.append(contentsOf: $0) }
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
        return v
    }

    /// Catches torn and damaged files (not tampering: the directory is the owner's). Eight bytes at a time in four
    /// independent lanes, each step `(h ^ word) * odd; h ^= h >> 29` — a bijection of `h`, so a change to any one word
    /// always changes the result; the length is mixed in last.
    static func checksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        @inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
            let x = (h ^ w) &* 0x9E37_79B9_7F4A_7C15
            return x ^ (x >> 29)
        }
        @inline(__always) func load(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        var c: UInt64 = 0x2545_f491_4f6c_dd1d
        var d: UInt64 = 0x1405_7b7e_f767_814f
        let n = raw.count
        var i = 0
        while i + 32 <= n {
            a = mix(a, load(i))
            b = mix(b, load(i + 8))
            c = mix(c, load(i + 16))
            d = mix(d, load(i + 24))
            i += 32
        }
        while i + 8 <= n {
            a = mix(a, load(i))
            i += 8
        }
        var last: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            last |= UInt64(raw[i]) << shift
            shift += 8
            i += 1
        }
        return mix(mix(mix(mix(mix(a, last), b), c), d), UInt64(n))
    }

    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
