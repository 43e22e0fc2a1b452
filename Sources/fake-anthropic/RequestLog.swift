import RalphAPI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One line of `$FAKE_ANTHROPIC_LOG`: what a request asked and what it was answered.
struct LogEntry: Sendable {
    /// The request path, without the query string.
    var path: String
    var model: String?
    var stream: Bool?
    /// The first 200 characters of the prompt.
    var script: String?
    var step: Int?
    /// 1 for the first request of this (prompt, step), 2 for the second…
    var attempt: Int?
    /// The HTTP status answered (200 also for `hang` and `cut`).
    var status = 200
    /// The `x-stainless-retry-count` header.
    var retryCount: Int?
    /// ``Conversation/last``.
    var last: [JSONValue] = []

    var json: JSONValue {
        [
            "path": .string(path), "model": model.map(JSONValue.string) ?? nil, "stream": stream.map(JSONValue.bool) ?? nil,
            "script": script.map { .string(String($0.prefix(200))) } ?? nil, "step": step.map(JSONValue.int) ?? nil,
            "attempt": attempt.map(JSONValue.int) ?? nil, "status": .int(status),
            "retry_count": retryCount.map(JSONValue.int) ?? nil, "last": .array(last),
        ]
    }
}

/// Appends ``LogEntry`` lines to `$FAKE_ANTHROPIC_LOG` (nothing when it is unset or empty). Each line is one `write`
/// to a file opened with O_APPEND, under a lock, so lines of concurrent requests never interleave.
final class RequestLog: Sendable {
    private let path: String?
    private let lock = Mutex(())

    init(path: String?) { self.path = path.flatMap { $0.isEmpty ? nil : $0 } }

    func append(_ entry: LogEntry) {
        guard let path else { return }
        let line = JSONWriter.bytes(entry.json) + [0x0A]
        lock.withLock { _ in
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            guard fd >= 0 else { return }
            defer { close(fd) }
            line.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
        }
    }
}
