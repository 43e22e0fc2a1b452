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
    /// A whole entry: where the run file stands and its fold, details included.
    struct Entry: RunIndexPosition {
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

    /// The list part of an entry, read without its details (what a restart needs of a finished run).
    struct SummaryEntry: RunIndexPosition {
        var file: String
        var device: UInt64
        var inode: UInt64
        var offset: Int
        var head: [UInt8]
        var tail: [UInt8]
        var checkpoints: [Int]
        var summary: RunSummary
    }

    static let tailSize = 64

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

        /// The entry is there but cannot be used as it is (rather than: it could not be read this time).
        var isDamage: Bool {
            if case .malformed = self { return true }
            return false
        }
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

    /// The entry saved for `id`, details included: nil when there is none; throws when it exists but cannot be used.
    func load(id: String) throws(IndexError) -> Entry? {
        let file = path(for: id)
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .io("cannot read \(file)", errno)
        }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { throw .io("cannot read \(file)", errno) }
        guard status.size <= Self.sizeLimit else { throw .malformed("\(status.size) bytes") }
        return try Self.decode(try Self.read(fd: fd, count: status.size, from: 0, file: file))
    }

    /// The list part of the entry saved for `id`, its details left on disk (only the header and the summary section
    /// are read, and the entry's size checked against them): nil when there is none; throws when it exists but
    /// cannot be used.
    func loadSummary(id: String) throws(IndexError) -> SummaryEntry? {
        let file = path(for: id)
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .io("cannot read \(file)", errno)
        }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { throw .io("cannot read \(file)", errno) }
        guard status.size <= Self.sizeLimit else { throw .malformed("\(status.size) bytes") }
        var prefix = try Self.read(fd: fd, count: min(status.size, Self.summaryReadSize), from: 0, file: file)
        if prefix.count >= Self.headerSize, prefix.count < status.size {
            // A summary longer than the first read (a long task name or question): the rest of it.
            var length: UInt64 = 0
            for k in 0..<8 { length |= UInt64(prefix[8 + k]) << (8 * UInt64(k)) }
            if length <= UInt64(status.size - Self.headerSize), Self.headerSize + Int(length) > prefix.count {
                prefix += try Self.read(fd: fd, count: Self.headerSize + Int(length) - prefix.count, from: prefix.count, file: file)
            }
        }
        return try Self.decodeSummary(prefix, fileSize: status.size)
    }

    /// Larger entries are damaged (a fold's capped collections stay far below).
    static let sizeLimit = 256 << 20

    /// `count` bytes from `offset`, all of them.
    private static func read(fd: Int32, count: Int, from offset: Int, file: String) throws(IndexError) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let n = FileSystem.pread(fd: fd, into: UnsafeMutableRawBufferPointer(buffer), offset: offset)
            if n < 0 { failure = errno }
            initialized = max(n, 0)
        }
        if failure != 0 { throw .io("cannot read \(file)", failure) }
        guard bytes.count == count else { throw .malformed("shorter than it was a moment ago") }
        return bytes
    }

    func remove(id: String) {
        unlink(path(for: id))
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

/// What an entry says of the run file it describes, checked against the file before the entry is used.
protocol RunIndexPosition {
    var file: String { get }
    var device: UInt64 { get }
    var inode: UInt64 { get }
    var offset: Int { get }
    var head: [UInt8] { get }
    var tail: [UInt8] { get }
}
