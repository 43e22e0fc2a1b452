import Foundation
import RalphFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The output logs of the processes run control starts (`<data-dir>/runs/<pending id>.log`): reading their end for
/// error messages and answers, and keeping them under a size limit.
extension RunSupervisor {
    static func readTail(_ path: String, bytes: Int) -> String {
        guard bytes > 0, let size = FileSystem.status(path)?.size else { return "" }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: bytes)
        let n = buffer.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: max(0, size - bytes)) }
        return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
    }

    /// Truncates a log that grew past `limit` bytes and notes it. The child writes with O_APPEND, so its next write
    /// lands at the new end. Returns true if it truncated; a note that cannot be appended is thrown.
    static func truncateIfOver(_ path: String, limit: Int) throws -> Bool {
        guard let size = FileSystem.status(path)?.size, size > limit else { return false }
        guard truncate(path, 0) == 0 else { return false }
        try EventFileAppender.append(line: Array("[ralph-mobile: the log passed \(limit) bytes and was truncated here]".utf8), to: path)
        return true
    }

    static func randomID() -> String {
        String(format: "%016llx", UInt64.random(in: 0...UInt64.max))
    }

    /// The last `lines` lines of a log file, joined with " | " (for error messages).
    static func tail(of path: String, lines: Int) -> String {
        guard let status = FileSystem.status(path) else { return "" }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        let count = min(status.size, 8192)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: status.size - count) }
        guard n > 0 else { return "" }
        let text = String(decoding: bytes[0..<n], as: UTF8.self)
        return text.split(separator: "\n").suffix(lines).joined(separator: " | ")
    }
}
