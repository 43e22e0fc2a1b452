import Testing

@testable import RalphFiles

/// A tail that has read `bytes` of a file whose first bytes are `head`, with identity (1, 7).
private func tail(read bytes: [UInt8], lines: Int = 1) -> RunTail {
    var tail = RunTail(maxLineBytes: 1024)
    let head = Array(bytes.prefix(RunTail.headSize))
    tail.restore(offset: bytes.count, lineCount: lines, head: head, end: [], device: 1, inode: 7, indexed: false)
    return tail
}

private func seen(device: UInt64 = 1, inode: UInt64 = 7, size: Int, head: [UInt8]) -> RunTail.Observation {
    RunTail.Observation(device: device, inode: inode, size: size, head: head)
}

@Suite("Run tail: continue or reset")
struct RunTailTests {
    let line = Array("{\"topic\":\"a\"}\n".utf8)

    @Test("a file never read continues from byte 0 whatever it is")
    func fresh() {
        let tail = RunTail(maxLineBytes: 1024)
        #expect(tail.decide(seen(device: 9, inode: 9, size: 0, head: [])) == .proceed)
        #expect(tail.decide(seen(size: 500, head: [])) == .proceed)
        #expect(tail.offset == 0 && tail.generation == 0 && tail.lastSize == -1)
    }

    @Test("the same file, grown or not, with the same first bytes continues")
    func sameFile() {
        let tail = tail(read: line)
        #expect(tail.decide(seen(size: line.count, head: line)) == .proceed)
        #expect(tail.decide(seen(size: line.count + 100, head: line)) == .proceed)
        #expect(!tail.grows(seen(size: line.count, head: line)))
        #expect(tail.grows(seen(size: line.count + 1, head: line)))
    }

    @Test("another inode or device at the path is a replaced file")
    func replaced() {
        let tail = tail(read: line)
        #expect(tail.decide(seen(inode: 8, size: 1000, head: line)) == .reset(.replaced))
        #expect(tail.decide(seen(device: 2, size: 1000, head: line)) == .reset(.replaced))
    }

    @Test("a file shorter than what was read is truncated (checked before the first bytes)")
    func truncated() {
        let tail = tail(read: line + line)
        #expect(tail.decide(seen(size: line.count, head: line)) == .reset(.truncated))
        #expect(tail.decide(seen(size: 0, head: [])) == .reset(.truncated))
    }

    @Test("same inode, not shorter, other first bytes: rewritten in place")
    func rewritten() {
        let tail = tail(read: line)
        var other = line
        other[2] = UInt8(ascii: "x")
        #expect(tail.decide(seen(size: line.count + 5, head: other)) == .reset(.rewritten))
        // A head that could not be read whole (the observer got fewer bytes) does not match either.
        #expect(tail.decide(seen(size: line.count, head: [])) == .reset(.rewritten))
    }

    @Test("restart forgets what was read and bumps the generation; the head is captured again once bytes are read")
    func restart() {
        var tail = tail(read: line, lines: 1)
        #expect(tail.headBytesWanted == nil)
        tail.restart()
        #expect(tail.offset == 0 && tail.lineCount == 0 && tail.head.isEmpty && tail.generation == 1)
        // With no head kept, a rewritten file is no longer told apart: only identity and size count.
        #expect(tail.decide(seen(size: 0, head: [])) == .proceed)
        #expect(tail.headBytesWanted == nil)
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: 100) + [0x0A]
        _ = long.withUnsafeBytes { tail.splitter.feed($0) { _ in true } }
        #expect(tail.headBytesWanted == RunTail.headSize)
    }

    @Test("a short file's head grows with the file up to the head size")
    func shortHead() {
        let tail = tail(read: Array("x\n".utf8))
        #expect(tail.head.count == 2)
        #expect(tail.headBytesWanted == nil)
        var grown = tail
        _ = Array("yy\n".utf8).withUnsafeBytes { grown.splitter.feed($0) { _ in true } }
        #expect(grown.headBytesWanted == 5)
    }

    @Test("the poll reads a file that changed size or identity, or vanished")
    func poll() {
        var tail = tail(read: line)
        tail.lastSize = line.count
        #expect(!tail.changed(device: 1, inode: 7, size: line.count))
        #expect(tail.changed(device: 1, inode: 7, size: line.count + 1))
        #expect(tail.changed(device: 1, inode: 8, size: line.count))
        #expect(tail.changed(device: 2, inode: 7, size: line.count))
        #expect(tail.changed(device: nil, inode: nil, size: nil))
    }

    @Test("the index is behind until it holds this line count under this generation")
    func indexing() {
        var tail = RunTail(maxLineBytes: 1024)
        tail.restore(offset: 10, lineCount: 3, head: [], end: [], device: 1, inode: 7, indexed: true)
        #expect(!tail.needsIndexing)
        tail.lineCount = 4
        #expect(tail.needsIndexing)
        tail.indexed = (4, 0)
        #expect(!tail.needsIndexing)
        tail.restart()
        tail.lineCount = 4
        #expect(tail.needsIndexing)
    }
}
