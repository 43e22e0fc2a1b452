import AgentRunner
import FuzzSupport
import RalphAPI

/// libFuzzer's entry point. The input is what `claude -p --output-format stream-json` wrote to stdout.
///
/// The bytes go through ``ClaudeLineSplitter`` (with a small cap, so oversized lines are reached) and every line
/// through ``ClaudeStreamDecoder``, as the agent process reads them. Checked for every input: the whole input and
/// random chunks of it give the same lines, and decoding a line's bytes equals decoding its parsed value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClaudeStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = inputBuffer(data, size)
    var chunking = Chunking(seededBy: input)
    let maxLineBytes = 1024
    let whole = lines([0..<input.count], of: input, maxLineBytes: maxLineBytes)
    let chunked = lines(chunking.ranges(count: input.count, maxChunk: 64), of: input, maxLineBytes: maxLineBytes)
    expect(whole == chunked, "a chunked split differs from the whole one: \(whole.map(\.count)) vs \(chunked.map(\.count))")

    for line in whole {
        expect(!line.contains(0x0A), "a line holds a newline")
        let outputs = ClaudeStreamDecoder.decode(line: line)
        if let value = try? JSONParser.parse(line), value.objectValue != nil {
            let fromValue = ClaudeStreamDecoder.decode(value)
            expect(outputs == fromValue, "decode(line:) and decode(_:) disagree: \(outputs) vs \(fromValue)")
        }
        for output in outputs {
            _ = String(describing: output)
        }
    }
    // The whole input as one line, newlines and all (the decoder must not trust the splitter).
    _ = ClaudeStreamDecoder.decode(line: input)
    return 0
}

/// Feeds `input` to a new splitter in the pieces `ranges` gives, then finishes it.
func lines(_ ranges: [Range<Int>], of input: UnsafeBufferPointer<UInt8>, maxLineBytes: Int) -> [[UInt8]] {
    var splitter = ClaudeLineSplitter(maxLineBytes: maxLineBytes)
    var lines: [[UInt8]] = []
    for range in ranges {
        lines += splitter.feed(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[range])))
    }
    lines += splitter.finish()
    expect(splitter.pendingByteCount == 0, "finish left \(splitter.pendingByteCount) bytes pending")
    return lines
}
