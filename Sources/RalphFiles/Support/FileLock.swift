import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `flock` on a sidecar file, the way ralph guards its stores (`tasks.jsonl.lock`, `memories.md.lock`, …).
///
/// Blocking: waits for the other holder (ralph, or another server request). Call it from a thread pool.
public enum FileLock {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var description: String { "cannot lock \(path): \(String(cString: strerror(errno)))" }
    }

    /// Runs `body` holding an exclusive (`exclusive`) or shared lock on `lockPath` (created if missing).
    public static func withLock<T, E: Error>(_ lockPath: String, exclusive: Bool, _ body: () throws(E) -> T) throws -> T {
        let directory = (lockPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(path: lockPath, errno: errno) }
        return try locked(fd, path: lockPath, exclusive: exclusive, body)
    }

    /// Runs `body` holding a lock on an existing file itself (ralph locks `loops.json` and `merge-queue.jsonl` this
    /// way); returns nil without creating anything when the file does not exist.
    public static func withLockIfExists<T, E: Error>(_ path: String, exclusive: Bool, _ body: () throws(E) -> T) throws -> T? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(path: path, errno: errno)
        }
        return try locked(fd, path: path, exclusive: exclusive, body)
    }

    private static func locked<T, E: Error>(_ fd: Int32, path lockPath: String, exclusive: Bool, _ body: () throws(E) -> T) throws -> T {
        defer { close(fd) }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno != EINTR { throw Failure(path: lockPath, errno: errno) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}

extension FileSystem {
    /// Replaces `path` with `data` atomically (a temporary file in the same directory, fsynced, then renamed), keeping
    /// the old file's permissions. Readers see the old or the new content, never a mix.
    public static func writeAtomically(_ data: Data, to path: String, mode: mode_t = 0o644) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let permissions = status(path).map { mode_t($0.mode) } ?? mode
        let temp = directory + "/.\((path as NSString).lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temp]) }
        var ok = true
        data.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    ok = false
                    return
                }
                written += n
            }
        }
        if fsync(fd) != 0 { ok = false }
        fchmod(fd, permissions)
        close(fd)
        guard ok, rename(temp, path) == 0 else {
            unlink(temp)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
