import FuzzSupport
import SDKSSEParser

/// libFuzzer's entry point. The input is a `text/event-stream` body as the SDK's ``SSEParser`` receives it.
///
/// Checked for every input: the stream fed in one piece, in random chunks and (for short inputs) one byte at a time
/// gives the same outputs and the same last event id, so no split of a line end, a UTF-8 sequence or the BOM changes
/// what the client sees.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSE(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = inputBuffer(data, size)
    var chunking = Chunking(seededBy: input)
    let whole = parse([0..<input.count], of: input)
    let chunked = parse(chunking.ranges(count: input.count, maxChunk: 16), of: input)
    expect(whole == chunked, "a chunked parse differs from the whole one:\n\(whole)\nvs\n\(chunked)")
    if input.count <= 512 {
        let bytewise = parse(input.indices.map { $0..<($0 + 1) }, of: input)
        expect(whole == bytewise, "a byte-at-a-time parse differs from the whole one:\n\(whole)\nvs\n\(bytewise)")
    }
    return 0
}

/// What a parse produced: every output in order, then the last event id.
struct ParseResult: Equatable {
    var outputs: [SSEParser.Output] = []
    var lastEventID: String?
}

/// Feeds `input` to a new parser in the pieces `ranges` gives.
func parse(_ ranges: [Range<Int>], of input: UnsafeBufferPointer<UInt8>) -> ParseResult {
    var parser = SSEParser()
    var result = ParseResult()
    for range in ranges {
        result.outputs += parser.feed(UnsafeBufferPointer(rebasing: input[range]))
    }
    result.lastEventID = parser.lastEventID
    return result
}
