/// An incremental parser for `text/event-stream` bodies, following the WHATWG
/// "event stream interpretation" rules.
///
/// Feed it bytes as they arrive, in chunks of any size; each call returns the
/// outputs completed by those bytes. Incomplete lines are kept until the next call.
///
/// - Lines end with CRLF, LF or CR (a CRLF split across two chunks is one line end).
/// - A UTF-8 byte order mark at the very start of the stream is skipped.
/// - Bytes are decoded as UTF-8, invalid sequences are replaced with U+FFFD.
/// - Like EventSource, the last event ID is committed when an event is dispatched
///   (on a blank line) and persists across events until the server sets another one.
public struct SSEParser: Sendable {
    /// A dispatched event.
    public struct Event: Sendable, Equatable {
        /// The last event ID at dispatch time (`nil` if the stream never set one; `""` after an empty `id:`).
        public var id: String?
        /// The event type: the value of the `event:` field, or `"message"` when there was none.
        public var event: String
        /// The `data:` lines of the event joined with `"\n"`.
        public var data: String

        /// Creates an event.
        public init(id: String?, event: String, data: String) {
            self.id = id
            self.event = event
            self.data = data
        }
    }

    /// One thing the parser recognised in the stream.
    public enum Output: Sendable, Equatable {
        /// A complete event, emitted on the blank line that ends it.
        case event(Event)
        /// A comment line (heartbeats are comments): the text after `:` with one leading space removed.
        case comment(String)
        /// A `retry:` field made only of ASCII digits: the reconnection time in milliseconds.
        case retry(Int)
    }

    /// The last event ID seen so far (persists across events, like EventSource's last-event-ID).
    ///
    /// It is updated when an event is dispatched, as in EventSource: an `id:` line whose
    /// event was never completed by a blank line does not count.
    public private(set) var lastEventID: String?

    /// Bytes of the current, unfinished line.
    private var line: [UInt8] = []
    /// The previous chunk ended with CR: a LF at the start of the next one belongs to that line end.
    private var skipLeadingLF = false
    /// No line has been completed yet (the BOM check applies to it).
    private var atStreamStart = true
    /// The data buffer (each `data:` value followed by "\n").
    private var dataBuffer = ""
    /// The event type buffer.
    private var eventTypeBuffer = ""
    /// The last event ID buffer (`nil` until an `id:` field is seen).
    private var idBuffer: String?

    /// Creates a parser at the start of a stream.
    public init() {}

    /// Feeds bytes (any chunking); returns everything completed by them, in order.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Output] where Bytes.Element == UInt8 {
        var outputs: [Output] = []
        let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            self.scan(buffer, into: &outputs)
        }
        if handled == nil {
            Array(bytes).withUnsafeBufferPointer { buffer in
                self.scan(buffer, into: &outputs)
            }
        }
        return outputs
    }

    // MARK: - Lines

    private static let lf: UInt8 = 0x0A
    private static let cr: UInt8 = 0x0D
    private static let colon: UInt8 = 0x3A
    private static let space: UInt8 = 0x20

    /// Splits `buffer` into lines, appending whole runs of non-line-end bytes at once.
    private mutating func scan(_ buffer: UnsafeBufferPointer<UInt8>, into outputs: inout [Output]) {
        var start = 0
        let end = buffer.count
        while start < end {
            if skipLeadingLF {
                skipLeadingLF = false
                if buffer[start] == Self.lf {
                    start += 1
                    continue
                }
            }
            var index = start
            while index < end {
                let byte = buffer[index]
                if byte == Self.lf || byte == Self.cr { break }
                index += 1
            }
            if line.isEmpty {
                // Common case: the whole line is inside this chunk, no copy needed.
                if index < end {
                    processLine(UnsafeBufferPointer(rebasing: buffer[start..<index]), into: &outputs)
                } else {
                    line.append(contentsOf: buffer[start..<index])
                }
            } else {
                line.append(contentsOf: buffer[start..<index])
                if index < end {
                    // Move the bytes out so that processing (which mutates self) does not overlap an access to `line`.
                    var pending: [UInt8] = []
                    swap(&pending, &line)
                    pending.withUnsafeBufferPointer { processLine($0, into: &outputs) }
                    if pending.count <= 64 * 1024 {
                        pending.removeAll(keepingCapacity: true)
                        line = pending
                    }
                }
            }
            guard index < end else { return }
            if buffer[index] == Self.cr { skipLeadingLF = true }
            start = index + 1
        }
    }

    /// Interprets one complete line (without its line end).
    private mutating func processLine(_ rawLine: UnsafeBufferPointer<UInt8>, into outputs: inout [Output]) {
        var lineBytes = rawLine[...]
        if atStreamStart {
            atStreamStart = false
            if lineBytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                lineBytes = lineBytes.dropFirst(3)
            }
        }
        guard let first = lineBytes.first else {
            dispatch(into: &outputs)
            return
        }
        if first == Self.colon {
            outputs.append(.comment(Self.decode(Self.droppingOneSpace(lineBytes.dropFirst()))))
            return
        }
        let field: Slice<UnsafeBufferPointer<UInt8>>
        let value: Slice<UnsafeBufferPointer<UInt8>>
        if let colonIndex = lineBytes.firstIndex(of: Self.colon) {
            field = lineBytes[..<colonIndex]
            value = Self.droppingOneSpace(lineBytes[(colonIndex + 1)...])
        } else {
            field = lineBytes
            value = lineBytes[lineBytes.endIndex...]
        }
        // Fields are compared byte-wise: ":" and " " never occur inside a UTF-8 sequence.
        if field.elementsEqual("data".utf8) {
            dataBuffer += Self.decode(value)
            dataBuffer += "\n"
        } else if field.elementsEqual("event".utf8) {
            eventTypeBuffer = Self.decode(value)
        } else if field.elementsEqual("id".utf8) {
            if !value.contains(0) {
                idBuffer = Self.decode(value)
            }
        } else if field.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let milliseconds = Int(Self.decode(value)) {
                outputs.append(.retry(milliseconds))
            }
        }
        // Any other field is ignored.
    }

    /// Dispatches the pending event on a blank line.
    private mutating func dispatch(into outputs: inout [Output]) {
        lastEventID = idBuffer
        defer {
            dataBuffer = ""
            eventTypeBuffer = ""
        }
        guard !dataBuffer.isEmpty else { return }
        var data = dataBuffer
        if data.utf8.last == Self.lf { data.removeLast() }
        let type = eventTypeBuffer.isEmpty ? "message" : eventTypeBuffer
        outputs.append(.event(Event(id: lastEventID, event: type, data: data)))
    }

    private static func droppingOneSpace(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        bytes.first == space ? bytes.dropFirst() : bytes
    }

    private static func decode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
    }
}
