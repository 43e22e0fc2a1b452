#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into newline-terminated lines, holding a partial last line until its newline arrives.
///
/// A line longer than ``maxLineBytes`` is not buffered: its bytes are counted and dropped, and it is reported as
/// ``Line/oversized(byteCount:startOffset:)`` when its newline arrives, so a runaway writer cannot exhaust memory and
/// line numbers stay right.
public struct LineSplitter: Sendable {
    public enum Line {
        /// A complete line without its `\n`. The buffer is only valid during the callback.
        case complete(UnsafeBufferPointer<UInt8>, startOffset: Int)
        case oversized(byteCount: Int, startOffset: Int)
    }

    public let maxLineBytes: Int
    /// File offset of the next byte to feed.
    public private(set) var offset: Int
    /// File offset where the pending (incomplete) line starts: the end of the last complete line.
    public private(set) var lineStart: Int
    private var pending: [UInt8] = []
    private var pendingDropped = 0

    /// - Parameters:
    ///   - offset: file offset of the first byte that will be fed (must be the start of a line).
    ///   - maxLineBytes: longest line that is buffered (default 64 MiB).
    public init(offset: Int = 0, maxLineBytes: Int = 64 << 20) {
        self.offset = offset
        self.lineStart = offset
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes of the partial line currently held.
    public var pendingByteCount: Int { pending.count + pendingDropped }

    /// Feeds the next chunk; calls `onLine` for every line completed by it. Return false from `onLine` to stop early;
    /// the splitter then stands right after that line, and `feed` returns the number of chunk bytes consumed.
    @discardableResult
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ onLine: (Line) -> Bool) -> Int {
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), chunk.count > 0 else { return 0 }
        var position = 0
        let count = chunk.count
        while position < count {
            let remaining = count - position
            guard let found = memchr(base + position, 0x0A, remaining) else {
                appendPending(UnsafeBufferPointer(start: base + position, count: remaining))
                offset += remaining
                return count
            }
            let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let piece = UnsafeBufferPointer(start: base + position, count: newline - position)
            let start = lineStart
            let keepGoing: Bool
            if pendingDropped > 0 || pending.count + piece.count > maxLineBytes {
                let total = pending.count + pendingDropped + piece.count
                pending.removeAll(keepingCapacity: false)
                pendingDropped = 0
                keepGoing = onLine(.oversized(byteCount: total, startOffset: start))
            } else if pending.isEmpty {
                keepGoing = onLine(.complete(piece, startOffset: start))
            } else {
                pending.append(contentsOf: piece)
                keepGoing = pending.withUnsafeBufferPointer { onLine(.complete($0, startOffset: start)) }
                pending.removeAll(keepingCapacity: pending.count < 1 << 16)
            }
            offset += newline + 1 - position
            lineStart = offset
            position = newline + 1
            if !keepGoing { return position }
        }
        return count
    }

    private mutating func appendPending(_ piece: UnsafeBufferPointer<UInt8>) {
        if pendingDropped > 0 {
            pendingDropped += piece.count
        } else if pending.count + piece.count > maxLineBytes {
            pendingDropped = pending.count + piece.count
            pending.removeAll(keepingCapacity: false)
        } else {
            pending.append(contentsOf: piece)
        }
    }
}
