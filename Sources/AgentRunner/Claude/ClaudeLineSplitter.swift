import RalphFiles

/// Splits an agent's stdout into lines: on `\n`, with a partial last line kept until its newline arrives (or until
/// ``finish()`` at end of file), a trailing `\r` removed, and absurdly long lines capped.
///
/// It wraps ``RalphFiles/LineSplitter``, which does not buffer a line past its limit: such a line is delivered as
/// ``oversizedMarker(byteCount:)``, a short text that is not JSON (``ClaudeStreamDecoder`` reports it as
/// ``AgentEvent/notJSON(_:)``), so a runaway writer cannot exhaust the server's memory.
public struct ClaudeLineSplitter: Sendable {
    /// The default cap on one line (16 MiB): far above any real stream-json line, far below trouble.
    public static let defaultMaxLineBytes = 16 << 20

    private var splitter: LineSplitter

    public init(maxLineBytes: Int = defaultMaxLineBytes) {
        splitter = LineSplitter(maxLineBytes: maxLineBytes)
    }

    /// What replaces a line longer than the cap.
    public static func oversizedMarker(byteCount: Int) -> [UInt8] {
        Array("[oversized line of \(byteCount) bytes dropped]".utf8)
    }

    /// Bytes of the partial line currently held.
    public var pendingByteCount: Int { splitter.pendingByteCount }

    /// Feeds the next chunk of the stream; returns the lines it completes, without their line endings.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        splitter.feed(chunk) { line in
            switch line {
            case .complete(let bytes, _):
                let end = bytes.last == 0x0D ? bytes.count - 1 : bytes.count
                lines.append(Array(UnsafeBufferPointer(rebasing: bytes[0..<end])))
            case .oversized(let byteCount, _):
                lines.append(Self.oversizedMarker(byteCount: byteCount))
            }
            return true
        }
        return lines
    }

    /// Feeds the next chunk of the stream.
    public mutating func feed(_ chunk: [UInt8]) -> [[UInt8]] {
        chunk.withUnsafeBytes { feed($0) }
    }

    /// At end of file: the partial last line, if there is one.
    public mutating func finish() -> [[UInt8]] {
        guard splitter.pendingByteCount > 0 else { return [] }
        return feed([0x0A])
    }
}
