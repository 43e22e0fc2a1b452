import Foundation
import RalphAPI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// stdout. Every line is written with a single `write` (no stdio buffering), and lines from the turn thread and the
/// stdin reader thread never interleave.
final class Output: Sendable {
    let format: Options.OutputFormat
    /// Pause before each line of a turn, so streaming is observable (`FAKE_CLAUDE_DELAY_MS`).
    let delayMicroseconds: UInt32
    private let lock = Mutex(())

    init(format: Options.OutputFormat, delayMilliseconds: Int) {
        self.format = format
        delayMicroseconds = UInt32(clamping: max(0, delayMilliseconds) * 1000)
    }

    /// Writes a protocol line (stream-json only; the other formats print the result alone, see ``finalResult(_:)``).
    /// `paced` lines wait for the configured delay first.
    func emit(_ value: JSONValue, paced: Bool = true) {
        guard format == .streamJSON else { return }
        if paced && delayMicroseconds > 0 { usleep(delayMicroseconds) }
        var bytes = JSONWriter.bytes(value)
        bytes.append(0x0A)
        write(bytes)
    }

    /// Like ``emit(_:paced:)``, but builds the line after the pause from CLOCK_MONOTONIC read right before the write
    /// (the `stamped` command: a latency probe).
    func emitStamped(_ build: (Int64) -> JSONValue) {
        guard format == .streamJSON else { return }
        if delayMicroseconds > 0 { usleep(delayMicroseconds) }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var bytes = JSONWriter.bytes(build(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)))
        bytes.append(0x0A)
        write(bytes)
    }

    /// Writes a line that is not JSON (the `garbage` command).
    func emitRaw(_ text: String) {
        guard format == .streamJSON else { return }
        write(Array((text + "\n").utf8))
    }

    /// The end of a turn: the `result` line in stream-json, the result object with `--output-format json`, the result
    /// text with `text`.
    func finalResult(_ result: JSONValue) {
        switch format {
        case .streamJSON: emit(result)
        case .json: write(JSONWriter.bytes(result) + [0x0A])
        case .text: write(Array(((result.objectValue?["result"]?.stringValue ?? "") + "\n").utf8))
        }
    }

    private func write(_ bytes: [UInt8]) {
        lock.withLock { _ in writeAll(1, bytes) }
    }
}

/// Writes all of `bytes` to `fd`, retrying short writes.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// The `FAKE_CLAUDE_LOG` file for tests: one JSON line per event, appended with a single write.
struct EventLog: Sendable {
    let path: String?

    func append(_ event: JSONValue) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        writeAll(fd, JSONWriter.bytes(event) + [0x0A])
    }
}
