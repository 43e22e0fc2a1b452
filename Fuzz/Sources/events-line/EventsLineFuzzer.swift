import Foundation
import FuzzSupport
import RalphAPI
import RalphFiles

/// libFuzzer's entry point. The input is the content of a ralph events file (and, whole, one JSON document).
///
/// The file is read as the catalog reads it: split with ``LineSplitter`` (with a small line cap, so oversized lines
/// are reached), each line decoded by ``EventLineDecoder`` and folded into a ``RunState``, each event turned into
/// the `workflow` payload the server sends. Checked for every input:
/// - splitting the input in one piece and in random chunks gives the same lines and offsets;
/// - the `workflow` payload and every line's JSON, written by ``JSONWriter``, hold no raw line end and parse back
///   to the same value (non-finite numbers, which JSON cannot hold, are written as `null`);
/// - a `ts` written back by ``Timestamp/format(_:)`` parses to the same millisecond.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventsLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = inputBuffer(data, size)
    checkRoundTrip(of: input)

    var chunking = Chunking(seededBy: input)
    let maxLineBytes = 256
    let whole = split([0..<input.count], of: input, maxLineBytes: maxLineBytes)
    let chunked = split(chunking.ranges(count: input.count, maxChunk: 48), of: input, maxLineBytes: maxLineBytes)
    expect(whole == chunked, "a chunked split differs from the whole one: \(whole) vs \(chunked)")

    var state = RunState()
    for (index, line) in whole.lines.enumerated() {
        let id = index + 1
        let decoded: DecodedLine
        switch line {
        case .complete(let bytes, _):
            decoded = EventLineDecoder.decode(bytes, id: id)
            bytes.withUnsafeBufferPointer(checkRoundTrip(of:))
        case .oversized:
            decoded = .malformed(reason: "too long")
        }
        if case .event(let event) = decoded {
            readAll(of: event)
            let payload = WorkflowPayload.object(event)
            checkWritten(payload)
        }
        state.apply(decoded)
    }
    _ = state.iterationStats(total: 100, live: true)
    _ = state.iterationItems()
    _ = state.hatUsageList()
    return 0
}

/// One line as the splitter delivered it, copied out of its callback.
enum SplitLine: Equatable, CustomStringConvertible {
    case complete([UInt8], startOffset: Int)
    case oversized(byteCount: Int, startOffset: Int)

    var description: String {
        switch self {
        case .complete(let bytes, let start): "complete(\(bytes.count) bytes at \(start))"
        case .oversized(let count, let start): "oversized(\(count) bytes at \(start))"
        }
    }
}

/// What a whole split produced: the lines, then where the splitter stands.
struct SplitResult: Equatable, CustomStringConvertible {
    var lines: [SplitLine] = []
    var offset = 0
    var lineStart = 0
    var pending = 0

    var description: String { "\(lines) offset \(offset) lineStart \(lineStart) pending \(pending)" }
}

/// Feeds `input` to a new splitter in the pieces `ranges` gives.
func split(_ ranges: [Range<Int>], of input: UnsafeBufferPointer<UInt8>, maxLineBytes: Int) -> SplitResult {
    var splitter = LineSplitter(maxLineBytes: maxLineBytes)
    var result = SplitResult()
    for range in ranges {
        let piece = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[range]))
        let consumed = splitter.feed(piece) { line in
            switch line {
            case .complete(let bytes, let start): result.lines.append(.complete(Array(bytes), startOffset: start))
            case .oversized(let count, let start): result.lines.append(.oversized(byteCount: count, startOffset: start))
            }
            return true
        }
        expect(consumed == range.count, "feed consumed \(consumed) of \(range.count) bytes without being stopped")
    }
    result.offset = splitter.offset
    result.lineStart = splitter.lineStart
    result.pending = splitter.pendingByteCount
    expect(result.offset == input.count, "the splitter stands at \(result.offset) after \(input.count) bytes")
    expect(result.lineStart + result.pending == result.offset, "lineStart \(result.lineStart) + pending \(result.pending) != offset")
    return result
}

/// Reads every derived property of an event, as the state fold and the routes do. A `ts` that parses, written in
/// the contract's form (as the fold writes it for clients), must parse back to the same millisecond. The form has
/// years 0000 to 9999 only, which a `ts` in year 0000 or 9999 with an offset can leave: such dates are not checked.
func readAll(of event: RalphEvent) {
    _ = event.ts
    if let date = event.date, contractYears.contains(date.timeIntervalSince1970) {
        let text = Timestamp.format(date)
        let again = Timestamp.parse(text)
        expect(
            again.map { abs($0.timeIntervalSince(date)) < 0.0011 } ?? false,
            "ts \(event.ts ?? "") is \(date.timeIntervalSince1970), written \(text), read back \(again?.timeIntervalSince1970 ?? .nan)"
        )
    }
    _ = event.iteration
    _ = event.hat
    _ = event.triggered
    _ = event.payloadText
    _ = event.isOrchestratorRecord
}

/// 0000-01-01T00:00:00Z up to 10000-01-01T00:00:00Z, in seconds since 1970.
let contractYears = -62_167_219_200.0..<253_402_300_800.0

/// When `bytes` is one JSON document, its value written back must parse to the same value.
func checkRoundTrip(of bytes: UnsafeBufferPointer<UInt8>) {
    guard let value = try? JSONParser.parse(bytes) else { return }
    checkWritten(value)
}

/// `value` written by ``JSONWriter``: one line, and it parses back to `value`.
func checkWritten(_ value: JSONValue) {
    let written = JSONWriter.bytes(value)
    expect(!written.contains(0x0A) && !written.contains(0x0D), "JSONWriter wrote a raw line end: \(JSONWriter.string(value))")
    let reparsed: JSONValue
    do {
        reparsed = try JSONParser.parse(written)
    } catch {
        expect(false, "JSONWriter's output does not parse (\(error)): \(JSONWriter.string(value))")
        return
    }
    let expected = writable(value)
    expect(reparsed == expected, "written and parsed back, \(JSONWriter.string(expected)) became \(JSONWriter.string(reparsed))")
}

/// `value` as JSON can hold it: non-finite numbers become `null`, as ``JSONWriter`` writes them.
func writable(_ value: JSONValue) -> JSONValue {
    switch value {
    case .double(let d) where !d.isFinite: .null
    case .array(let items): .array(items.map(writable))
    case .object(let object): .object(JSONObject(object.members.map { (key: $0.key, value: writable($0.value)) }))
    default: value
    }
}
