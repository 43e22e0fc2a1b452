import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, throwing-free wrappers over the POSIX calls the catalog needs. They block, so call them off the async
/// runtime (the catalog's own thread, or a thread pool).
///
/// These open by name and follow symbolic links anywhere: they are for the server's own files (its data directory,
/// `/proc`, its bundled web assets) and for lexical path work. A file under a workspace root is opened through that
/// root's ``RootDirectory``, which confines the open itself.
public enum FileSystem {
    public struct Status: Sendable, Equatable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int
        public var modified: Date
        public var isDirectory: Bool
        public var isRegularFile: Bool
        public var isSymlink: Bool
        public var mode: UInt32
    }

    /// `lstat` when `followSymlinks` is false, else `stat`.
    public static func status(_ path: String, followSymlinks: Bool = true) -> Status? {
        var st = stat()
        let rc = followSymlinks ? stat(path, &st) : lstat(path, &st)
        guard rc == 0 else { return nil }
        return Status(st)
    }

    /// `fstat` of an open descriptor.
    public static func status(fd: Int32) -> Status? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return Status(st)
    }

    /// The canonical absolute path (symlinks resolved), or nil if it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Names in a directory (without `.` and `..`), or nil if it cannot be read.
    public static func list(_ directory: String) -> [String]? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Reads a whole small file (at most `limit` bytes). Nil if it cannot be read or is larger.
    public static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return result }
            result.append(contentsOf: buffer[0..<n])
            if result.count > limit { return nil }
        }
    }

    /// Reads a small text file as UTF-8 (invalid bytes repaired).
    public static func readText(_ path: String, limit: Int = 1 << 20) -> String? {
        readSmallFile(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `pread` until `buffer` is full or end of file; returns bytes read, or -1 on error.
    public static func pread(fd: Int32, into buffer: UnsafeMutableRawBufferPointer, offset: Int) -> Int {
        var total = 0
        while total < buffer.count {
            #if canImport(Glibc)
            let n = Glibc.pread(fd, buffer.baseAddress! + total, buffer.count - total, off_t(offset + total))
            #else
            let n = Darwin.pread(fd, buffer.baseAddress! + total, buffer.count - total, off_t(offset + total))
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if n == 0 { break }
            total += n
        }
        return total
    }

    /// Lexically normalises an absolute path (`.`/`..` segments, duplicate slashes) without touching the disk.
    public static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `base/relative`, or `relative` itself when it is absolute, normalised.
    public static func join(_ base: String, _ relative: String) -> String {
        relative.hasPrefix("/") ? normalize(relative) : normalize(base + "/" + relative)
    }

    /// `path` relative to `base` when inside it (`.` for the base itself), else the absolute path.
    public static func relative(_ path: String, to base: String) -> String {
        if path == base { return "." }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}

extension FileSystem.Status {
    init(_ st: stat) {
        #if canImport(Darwin)
        let seconds = Double(st.st_mtimespec.tv_sec) + Double(st.st_mtimespec.tv_nsec) / 1e9
        #else
        let seconds = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        #endif
        let type = UInt32(st.st_mode) & UInt32(S_IFMT)
        self.init(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int(st.st_size), modified: Date(timeIntervalSince1970: seconds),
            isDirectory: type == UInt32(S_IFDIR), isRegularFile: type == UInt32(S_IFREG), isSymlink: type == UInt32(S_IFLNK),
            mode: UInt32(st.st_mode) & 0o7777
        )
    }
}
