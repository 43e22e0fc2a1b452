import RalphAPI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Appends one JSON value per line to a file (a double's request log, named by an environment variable; nothing when
/// it is unset or empty). Each line is one `write` to a file opened with O_APPEND, under a lock, so the lines of
/// concurrent requests never interleave.
public final class JSONLinesLog: Sendable {
    private let path: String?
    private let lock = Mutex(())

    public init(path: String?) { self.path = path.flatMap { $0.isEmpty ? nil : $0 } }

    public func append(_ value: JSONValue) {
        guard let path else { return }
        let line = JSONWriter.bytes(value) + [0x0A]
        lock.withLock { _ in
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            guard fd >= 0 else { return }
            defer { close(fd) }
            line.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
        }
    }
}
