import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The catalog's on-disk index: for each run file, its fold state as of a line boundary, so a restarted server reads
/// only the bytes appended since instead of folding every run again.
///
/// The index is a cache, never a source of truth: an entry is used only when the run file is still the same file
/// (device, inode, its first bytes and the bytes just before the indexed offset all match, and it is not shorter);
/// anything else — a missing, damaged, foreign or stale entry — is ignored and the run is folded from its file.
struct RunIndexStore {
    struct Entry {
        var file: String
        var device: UInt64
        var inode: UInt64
        /// Bytes folded: the start of the first line not in ``state``.
        var offset: Int
        /// The file's first bytes (up to ``RunTail/headSize``).
        var head: [UInt8]
        /// The bytes that end at ``offset`` (up to ``tailSize``).
        var tail: [UInt8]
        var checkpoints: [Int]
        var state: RunState
    }

    static let tailSize = 64
    static let magic: [UInt8] = Array("RMIDX".utf8)
    /// Bumped with any change to the layout (including ``RunState/encodingVersion``).
    static let version = 1

    let directory: String

    func path(for id: String) -> String { directory + "/" + id + ".idx" }

    /// Creates the directory (owner-only) if needed.
    func prepare() throws(IndexError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST { throw .io("cannot create \(directory)", errno) }
        guard FileSystem.status(directory)?.isDirectory == true else { throw .io("\(directory) is not a directory", ENOTDIR) }
    }

    enum IndexError: Error, CustomStringConvertible {
        case io(String, Int32)
        case malformed(String)

        var description: String {
            switch self {
            case .io(let what, let code): "\(what): \(String(cString: strerror(code)))"
            case .malformed(let why): "damaged index entry: \(why)"
            }
        }
    }

    static func encode(_ entry: Entry) -> [UInt8] {
        var w = BinaryWriter(capacity: 16 << 10)
        w.write(version)
        w.write(RunState.encodingVersion)
        w.write(entry.file)
        w.write(entry.device)
        w.write(entry.inode)
        w.write(entry.offset)
        w.write(bytes: entry.head)
        w.write(bytes: entry.tail)
        w.write(entry.checkpoints.count)
        var previous = 0
        for c in entry.checkpoints {
            w.write(c - previous)
            previous = c
        }
        entry.state.encode(into: &w)
        var out = magic
        out.reserveCapacity(magic.count + 8 + w.bytes.count)
        var sum = checksum(w.bytes).littleEndian
        withUnsafeBytes(of: &sum) { out.append(contentsOf: $0) }
        out.append(contentsOf: w.bytes)
        return out
    }

    static func decode(_ bytes: [UInt8]) throws(IndexError) -> Entry {
        let headerSize = magic.count + 8
        guard bytes.count > headerSize, Array(bytes[0..<magic.count]) == magic else { throw .malformed("not an index file") }
        var stored: UInt64 = 0
        for k in 0..<8 { stored |= UInt64(bytes[magic.count + k]) << (8 * UInt64(k)) }
        let body = Array(bytes[headerSize...])
        guard checksum(body) == stored else { throw .malformed("checksum mismatch") }
        var r = BinaryReader(body)
        do {
            guard try r.readInt() == version, try r.readInt() == RunState.encodingVersion else { throw IndexError.malformed("another version") }
            let file = try r.readString()
            let device = try r.readUInt64()
            let inode = try r.readUInt64()
            let offset = try r.readInt()
            let head = try r.readBytes()
            let tail = try r.readBytes()
            var checkpoints: [Int] = []
            var previous = 0
            for _ in 0..<(try r.readCount()) {
                previous += try r.readInt()
                checkpoints.append(previous)
            }
            let state = try RunState(decoding: &r)
            guard r.isAtEnd else { throw IndexError.malformed("trailing bytes") }
            guard offset >= 0, checkpoints.first == 0, state.lineCount >= 0,
                checkpoints.count == (max(state.lineCount - 1, 0) / RunSnapshot.checkpointInterval) + 1
            else { throw IndexError.malformed("inconsistent offsets") }
            return Entry(file: file, device: device, inode: inode, offset: offset, head: head, tail: tail, checkpoints: checkpoints, state: state)
        } catch let error as IndexError {
            throw error
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// FNV-1a, 64 bits: catches torn and damaged files (not tampering: the directory is the owner's).
    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return h
    }

    /// Writes an entry atomically (a temporary file renamed over the old one).
    func save(_ entry: Entry, id: String) throws(IndexError) {
        let bytes = Self.encode(entry)
        let target = path(for: id)
        let temporary = target + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("cannot write \(temporary)", errno) }
        var written = 0
        let ok = bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += n
            }
            return true
        }
        let code = errno
        close(fd)
        guard ok else {
            unlink(temporary)
            throw .io("cannot write \(temporary)", code)
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io("cannot rename \(temporary)", code)
        }
    }

    /// The entry saved for `id`: nil when there is none; throws when it exists but cannot be used.
    func load(id: String) throws(IndexError) -> Entry? {
        let file = path(for: id)
        guard FileSystem.status(file) != nil else { return nil }
        guard let bytes = FileSystem.readSmallFile(file, limit: 256 << 20) else { throw .io("cannot read \(file)", errno) }
        return try Self.decode(bytes)
    }

    func remove(id: String) {
        unlink(path(for: id))
    }

    /// The entry saved for `id`, or nil — logging why when one exists but cannot be read (the caller folds the run
    /// file instead, so this is a slower path, not a failure).
    func load(id: String, logger: Logger) -> Entry? {
        do {
            return try load(id: id)
        } catch {
            logger.notice("cannot use the run's index entry; folding its file instead", metadata: ["id": "\(id)", "error": "\(error)"])
            return nil
        }
    }

    /// Ids with an entry (or a leftover temporary file) in the directory.
    func storedIDs() throws -> Set<String> {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        var ids = Set<String>()
        for name in names {
            if name.hasSuffix(".idx") {
                ids.insert(String(name.dropLast(4)))
            } else if let range = name.range(of: ".idx.tmp-"), let pid = Int32(name[range.upperBound...]), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            {
                // A save its server did not finish (it is gone).
                unlink(directory + "/" + name)
            }
        }
        return ids
    }
}
