import Testing

@testable import RalphFiles

/// A line as the splitter reported it, copied out of the callback.
private enum Got: Equatable, CustomStringConvertible {
    case line(String, at: Int)
    case oversized(Int, at: Int)

    var description: String {
        switch self {
        case .line(let text, let at): "line(\(text.debugDescription) @\(at))"
        case .oversized(let count, let at): "oversized(\(count) @\(at))"
        }
    }
}

/// Feeds one chunk; `stopAfter` makes the callback return false on the n-th line (1-based) of this chunk.
private func feed(_ splitter: inout LineSplitter, _ chunk: [UInt8], stopAfter: Int? = nil) -> (consumed: Int, lines: [Got]) {
    var lines: [Got] = []
    let consumed = chunk.withUnsafeBytes { raw in
        splitter.feed(raw) { line in
            switch line {
            case .complete(let buffer, let start):
                lines.append(.line(String(decoding: buffer, as: UTF8.self), at: start))
            case .oversized(let count, let start):
                lines.append(.oversized(count, at: start))
            }
            return stopAfter.map { lines.count < $0 } ?? true
        }
    }
    return (consumed, lines)
}

private func feed(_ splitter: inout LineSplitter, _ text: String, stopAfter: Int? = nil) -> (consumed: Int, lines: [Got]) {
    feed(&splitter, Array(text.utf8), stopAfter: stopAfter)
}

@Suite("Line splitter")
struct LineSplitterTests {
    @Test("a line split across chunk boundaries comes out whole once its newline arrives")
    func acrossChunks() {
        var splitter = LineSplitter()
        var result = feed(&splitter, "ab")
        #expect(result.lines.isEmpty)
        #expect(result.consumed == 2)
        result = feed(&splitter, "c\nd")
        #expect(result.lines == [.line("abc", at: 0)])
        result = feed(&splitter, "e\n")
        #expect(result.lines == [.line("de", at: 4)])
        #expect(splitter.offset == 7)
        #expect(splitter.lineStart == 7)
        #expect(splitter.pendingByteCount == 0)
    }

    @Test("a partial last line is held until its newline arrives, with offset and lineStart right")
    func partialLineHeld() {
        var splitter = LineSplitter()
        var result = feed(&splitter, "one\ntw")
        #expect(result.lines == [.line("one", at: 0)])
        #expect(result.consumed == 6)
        #expect(splitter.offset == 6)
        #expect(splitter.lineStart == 4)
        #expect(splitter.pendingByteCount == 2)
        result = feed(&splitter, "o and more")
        #expect(result.lines.isEmpty)
        #expect(splitter.offset == 16)
        #expect(splitter.lineStart == 4)
        #expect(splitter.pendingByteCount == 12)
        result = feed(&splitter, "\n")
        #expect(result.lines == [.line("two and more", at: 4)])
        #expect(splitter.offset == 17)
        #expect(splitter.lineStart == 17)
        #expect(splitter.pendingByteCount == 0)
    }

    @Test("offsets start at the offset given to init")
    func initialOffset() {
        var splitter = LineSplitter(offset: 1000)
        #expect(splitter.offset == 1000)
        #expect(splitter.lineStart == 1000)
        let result = feed(&splitter, "x\nyz\n")
        #expect(result.lines == [.line("x", at: 1000), .line("yz", at: 1002)])
        #expect(splitter.offset == 1005)
        #expect(splitter.lineStart == 1005)
    }

    @Test("many lines in one chunk come out in order with their start offsets")
    func manyLines() {
        var splitter = LineSplitter()
        let text = (0..<500).map { "line \($0)\n" }.joined()
        let result = feed(&splitter, text)
        #expect(result.consumed == text.utf8.count)
        #expect(result.lines.count == 500)
        var offset = 0
        for (i, got) in result.lines.enumerated() {
            #expect(got == .line("line \(i)", at: offset))
            offset += "line \(i)\n".utf8.count
        }
        #expect(splitter.offset == offset)
    }

    @Test("empty lines are reported as complete empty buffers")
    func emptyLines() {
        var splitter = LineSplitter()
        let result = feed(&splitter, "a\n\n\nbb\n\n")
        #expect(result.lines == [.line("a", at: 0), .line("", at: 2), .line("", at: 3), .line("bb", at: 4), .line("", at: 7)])
        var counts: [Int] = []
        var fresh = LineSplitter()
        _ = Array("\n\n".utf8).withUnsafeBytes { raw in
            fresh.feed(raw) { line in
                if case .complete(let buffer, _) = line { counts.append(buffer.count) }
                return true
            }
        }
        #expect(counts == [0, 0])
    }

    @Test("feeding byte by byte gives the same lines as one chunk")
    func byteByByte() {
        let text = "{\"topic\":\"a\"}\n\nsecond line\r\nthird\n"
        var whole = LineSplitter()
        let expected = feed(&whole, text).lines
        var splitter = LineSplitter()
        var lines: [Got] = []
        for byte in text.utf8 { lines += feed(&splitter, [byte]).lines }
        #expect(lines == expected)
        #expect(lines.count == 4)
        #expect(lines[2] == .line("second line\r", at: 15))
    }

    @Test("an empty chunk does nothing")
    func emptyChunk() {
        var splitter = LineSplitter(offset: 5)
        let result = feed(&splitter, [UInt8]())
        #expect(result.consumed == 0)
        #expect(result.lines.isEmpty)
        #expect(splitter.offset == 5)
    }

    @Test("a line longer than maxLineBytes is reported as oversized and the next lines are still right")
    func oversizedInOneChunk() {
        var splitter = LineSplitter(maxLineBytes: 4)
        let result = feed(&splitter, "abcd\n123456789\nok\n")
        #expect(result.lines == [.line("abcd", at: 0), .oversized(9, at: 5), .line("ok", at: 15)])
        #expect(splitter.offset == 18)
        #expect(splitter.pendingByteCount == 0)
    }

    @Test("an oversized line that grows across chunks reports its full byte count")
    func oversizedAcrossChunks() {
        var splitter = LineSplitter(maxLineBytes: 4)
        var result = feed(&splitter, "123")
        #expect(result.lines.isEmpty)
        #expect(splitter.pendingByteCount == 3)
        result = feed(&splitter, "4567")
        #expect(result.lines.isEmpty)
        #expect(splitter.pendingByteCount == 7)
        result = feed(&splitter, "890")
        #expect(splitter.pendingByteCount == 10)
        result = feed(&splitter, "ab\nok\nxy")
        #expect(result.lines == [.oversized(12, at: 0), .line("ok", at: 13)])
        #expect(splitter.pendingByteCount == 2)
        #expect(splitter.lineStart == 16)
        result = feed(&splitter, "z\n")
        #expect(result.lines == [.line("xyz", at: 16)])
    }

    @Test("a held line that becomes too long only when its last piece arrives is oversized")
    func oversizedByLastPiece() {
        var splitter = LineSplitter(maxLineBytes: 4)
        _ = feed(&splitter, "abc")
        let result = feed(&splitter, "de\nfg\n")
        #expect(result.lines == [.oversized(5, at: 0), .line("fg", at: 6)])
    }

    @Test("a line of exactly maxLineBytes is complete, in one chunk or split")
    func exactlyMaxLine() {
        var splitter = LineSplitter(maxLineBytes: 4)
        #expect(feed(&splitter, "abcd\n").lines == [.line("abcd", at: 0)])
        _ = feed(&splitter, "ef")
        #expect(feed(&splitter, "gh\n").lines == [.line("efgh", at: 5)])
    }

    @Test("returning false stops right after that line and feed returns the bytes consumed")
    func stopEarly() {
        var splitter = LineSplitter()
        let chunk = Array("a\nbb\nccc\n".utf8)
        let first = feed(&splitter, chunk, stopAfter: 2)
        #expect(first.lines == [.line("a", at: 0), .line("bb", at: 2)])
        #expect(first.consumed == 5)
        #expect(splitter.offset == 5)
        #expect(splitter.lineStart == 5)
        #expect(splitter.pendingByteCount == 0)
        let rest = feed(&splitter, Array(chunk[first.consumed...]))
        #expect(rest.lines == [.line("ccc", at: 5)])
        #expect(rest.consumed == 4)
        #expect(splitter.offset == 9)
    }

    @Test("stopping on a line completed from held bytes reports only the bytes of this chunk")
    func stopOnHeldLine() {
        var splitter = LineSplitter()
        _ = feed(&splitter, "xy")
        let result = feed(&splitter, "z\nw\n", stopAfter: 1)
        #expect(result.lines == [.line("xyz", at: 0)])
        #expect(result.consumed == 2)
        #expect(splitter.offset == 4)
        #expect(splitter.lineStart == 4)
        #expect(feed(&splitter, "w\n").lines == [.line("w", at: 4)])
    }

    @Test("stopping on an oversized line stands right after it")
    func stopOnOversized() {
        var splitter = LineSplitter(maxLineBytes: 2)
        let result = feed(&splitter, "toolong\nok\n", stopAfter: 1)
        #expect(result.lines == [.oversized(7, at: 0)])
        #expect(result.consumed == 8)
        #expect(splitter.offset == 8)
        #expect(feed(&splitter, "ok\n").lines == [.line("ok", at: 8)])
    }
}
