import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends event lines to run files the way ralph and `ralph emit` do: one `write(2)` of a complete line on an
/// `O_APPEND` descriptor, so concurrent writers never interleave within a line.
///
/// The server appends to a run under its workspace root (``appendReturningOffset(line:to:in:)``): the events file
/// and every directory on its way (`.ralph` included) are opened from the root's descriptor with no symbolic link
/// followed, since ralph never links them and discovery never lists a run through a link. The path-only functions are
/// for ralph's doubles and the server's own data directory.
public enum EventFileAppender {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var description: String { "cannot append to \(path): \(String(cString: strerror(errno)))" }
    }

    /// Appends `line` plus a newline. The line must not contain a newline.
    public static func append(line: [UInt8], to path: String, create: Bool = false) throws(Failure) {
        _ = try appendReturningOffset(line: line, to: path, create: create)
    }

    /// Appends `line` plus a newline and returns the byte offset where the line starts in the file.
    @discardableResult
    public static func appendReturningOffset(line: [UInt8], to path: String, create: Bool = false) throws(Failure) -> Int {
        precondition(!line.contains(0x0A), "an event line cannot contain a newline")
        var bytes = line
        bytes.append(0x0A)
        let flags = O_WRONLY | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw Failure(path: path, errno: errno) }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, errno: errno)
            }
            written += n
        }
        // O_APPEND moved the file offset to the end of our write.
        return Int(lseek(fd, 0, SEEK_CUR)) - bytes.count
    }

    /// Appends `line` plus a newline to the existing run file `path` under `root`, opened with no symbolic link on the
    /// way (``RootDirectory/Links/refused``); returns the byte offset where the line starts.
    @discardableResult
    public static func appendReturningOffset(line: [UInt8], to path: String, in root: RootDirectory) throws(ConfinementError) -> Int {
        precondition(!line.contains(0x0A), "an event line cannot contain a newline")
        return try root.append(line + [0x0A], to: path, create: false, links: .refused)
    }

    /// The line `ralph emit` writes: keys in alphabetical order, `{"payload":…,"topic":…,"ts":…}`.
    public static func emitLine(topic: String, payload: JSONValue?, date: Date = Date()) -> [UInt8] {
        JSONWriter.bytes(.object(JSONObject([("payload", payload ?? .null), ("topic", .string(topic)), ("ts", .string(Timestamp.formatRalph(date)))])))
    }

    /// The line the orchestrator writes (`EventRecord`): `ts`, `iteration`, `hat`, `topic`, `triggered`, `payload`,
    /// `blocked_count`, in that order, optional ones omitted.
    public static func recordLine(
        topic: String, payload: String, iteration: Int, hat: String, triggered: String? = nil, blockedCount: Int? = nil, date: Date = Date()
    ) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [
            ("ts", .string(Timestamp.formatRalph(date))), ("iteration", .int(iteration)), ("hat", .string(hat)), ("topic", .string(topic)),
        ]
        if let triggered { members.append(("triggered", .string(triggered))) }
        members.append(("payload", .string(payload)))
        if let blockedCount { members.append(("blocked_count", .int(blockedCount))) }
        return JSONWriter.bytes(.object(JSONObject(members)))
    }
}
