import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `flock`, the way ralph guards its stores: on a sidecar (`tasks.jsonl.lock`, `memories.md.lock`), or on the file
/// itself (`loops.json`, `merge-queue.jsonl`). Same names, same lock kinds as ralph, so both sides exclude each other.
///
/// Every file is opened under a ``RootDirectory``: a sidecar is created with `O_NOFOLLOW` in its directory's
/// descriptor (a link planted under the sidecar's name is refused, so no lock file is ever created elsewhere), and a
/// locked file is read through the very descriptor that holds the lock.
///
/// Blocking: waits for the other holder (ralph, or another server request). Call it from a thread pool.
public enum FileLock {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var description: String { "cannot lock \(path): \(String(cString: strerror(errno)))" }
    }

    /// Runs `body` holding an exclusive (`exclusive`) or shared lock on the sidecar `lockPath` under `root`, creating
    /// it (and its directories) if missing.
    public static func withLock<T, E: Error>(_ lockPath: String, in root: RootDirectory, exclusive: Bool, _ body: () throws(E) -> T) throws -> T {
        let components = try root.components(of: lockPath)
        if components.count > 1 { try root.makeDirectories(RootDirectory.shown(components.dropLast())) }
        let fd = try root.openDescriptor(components, flags: O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o644, links: .withinRoot)
        return try locked(fd, path: RootDirectory.shown(components), exclusive: exclusive) { () throws(E) -> T in try body() }
    }

    /// Runs `body` with the descriptor of the existing file `path` under `root`, holding a lock on it (ralph locks
    /// `loops.json` and `merge-queue.jsonl` this way); returns nil without creating anything when the file does not
    /// exist. Read the file through the descriptor (``RootDirectory/read(_:limit:)``), never by its name again.
    public static func withLockedFile<T, E: Error>(
        _ path: String, in root: RootDirectory, exclusive: Bool, _ body: (Int32) throws(E) -> T
    ) throws -> T? {
        let components = try root.components(of: path)
        let fd: Int32
        do throws(ConfinementError) {
            fd = try root.openDescriptor(components, flags: O_RDONLY | O_NONBLOCK, links: .withinRoot)
        } catch .notFound {
            return nil
        }
        return try locked(fd, path: RootDirectory.shown(components), exclusive: exclusive) { () throws(E) -> T in try body(fd) }
    }

    private static func locked<T, E: Error>(_ fd: Int32, path: String, exclusive: Bool, _ body: () throws(E) -> T) throws -> T {
        defer { close(fd) }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno != EINTR { throw Failure(path: path, errno: errno) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}

extension RootDirectory {
    /// Reads the regular file behind `fd` whole (at most `limit` bytes): for a file opened and locked by
    /// ``FileLock/withLockedFile(_:in:exclusive:_:)``.
    public static func read(_ fd: Int32, limit: Int) throws(ConfinementError) -> FileContent {
        try read(fd, shown: currentPath(of: fd) ?? "the locked file", limit: limit)
    }
}
