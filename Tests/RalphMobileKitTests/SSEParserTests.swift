import Testing

@testable import RalphMobileKit

@Suite("Parsing server-sent events")
struct SSEParserTests {
    typealias Output = SSEParser.Output

    /// Feeds the whole text at once to a fresh parser.
    static func parse(_ text: String) -> [Output] {
        var parser = SSEParser()
        return parser.feed(Array(text.utf8))
    }

    static func event(_ data: String, type: String = "message", id: String? = nil) -> Output {
        .event(SSEParser.Event(id: id, event: type, data: data))
    }

    // MARK: - WHATWG examples

    @Test("the spec's stream with a comment, an id, an id reset and an unterminated event")
    func specIDExample() {
        var parser = SSEParser()
        let text = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"
        let outputs = parser.feed(Array(text.utf8))
        #expect(
            outputs == [
                .comment("test stream"),
                Self.event("first event", id: "1"),
                Self.event("second event", id: ""),
            ])
        #expect(parser.lastEventID == "")
        // The third event is dispatched only when its blank line arrives.
        #expect(parser.feed(Array("\n".utf8)) == [Self.event(" third event", id: "")])
    }

    @Test("\"data\" without a colon adds an empty line; an empty data buffer dispatches nothing")
    func specEmptyDataExample() {
        let outputs = Self.parse("data\n\ndata\ndata\n\ndata:")
        #expect(outputs == [Self.event(""), Self.event("\n")])
        #expect(Self.parse("data:\n\n") == [Self.event("")])
    }

    @Test("a single leading space after the colon is removed, and only one")
    func specSpaceExample() {
        #expect(Self.parse("data:test\n\ndata: test\n\n") == [Self.event("test"), Self.event("test")])
        #expect(Self.parse("data:  two\n\n") == [Self.event(" two")])
        #expect(Self.parse("data: a:b: c\n\n") == [Self.event("a:b: c")])
    }

    @Test("several data lines are joined with newlines")
    func multiLineData() {
        #expect(Self.parse("data: YHOO\ndata: +2\ndata: 10\n\n") == [Self.event("YHOO\n+2\n10")])
    }

    @Test("the event field sets the type, which is reset after each dispatch")
    func eventTypes() {
        let text = "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\ndata: plain\n\n"
        #expect(
            Self.parse(text) == [
                Self.event("73857293", type: "add"),
                Self.event("2153", type: "remove"),
                Self.event("113411", type: "add"),
                Self.event("plain"),
            ])
        // A type without data dispatches nothing, and does not leak into the next event.
        #expect(Self.parse("event: lonely\n\ndata: x\n\n") == [Self.event("x")])
        // An empty type means "message".
        #expect(Self.parse("event:\ndata: x\n\n") == [Self.event("x")])
    }

    // MARK: - Fields

    @Test("the last event ID persists across events, is committed on dispatch and can be reset to empty")
    func idPersistence() {
        var parser = SSEParser()
        #expect(parser.lastEventID == nil)
        #expect(parser.feed(Array("data: a\n\n".utf8)) == [Self.event("a", id: nil)])
        #expect(parser.feed(Array("id: 7\ndata: b\n\n".utf8)) == [Self.event("b", id: "7")])
        #expect(parser.lastEventID == "7")
        #expect(parser.feed(Array("data: c\n\n".utf8)) == [Self.event("c", id: "7")])
        // An id on a block without data is committed without an event.
        #expect(parser.feed(Array("id: 8\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "8")
        // An id whose event has not been completed yet does not count.
        #expect(parser.feed(Array("id: 9\ndata: d\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "8")
        #expect(parser.feed(Array("\n".utf8)) == [Self.event("d", id: "9")])
        #expect(parser.lastEventID == "9")
        // An empty id resets it to the empty string.
        #expect(parser.feed(Array("id:\ndata: e\n\n".utf8)) == [Self.event("e", id: "")])
        #expect(parser.lastEventID == "")
    }

    @Test("an id containing NUL is ignored")
    func idWithNUL() {
        var parser = SSEParser()
        let outputs = parser.feed(Array("id: 1\ndata: a\n\nid: x\u{0}y\ndata: b\n\n".utf8))
        #expect(outputs == [Self.event("a", id: "1"), Self.event("b", id: "1")])
        #expect(parser.lastEventID == "1")
    }

    @Test("retry emits milliseconds only when made of ASCII digits")
    func retry() {
        #expect(Self.parse("retry: 1500\n") == [.retry(1500)])
        #expect(Self.parse("retry:0\n") == [.retry(0)])
        for bad in ["retry: 15a\n", "retry:\n", "retry\n", "retry: -1\n", "retry: 1.5\n", "retry:  15\n", "retry: \u{FF19}\n", "retry: 99999999999999999999999\n"] {
            #expect(Self.parse(bad).isEmpty, "\(bad.debugDescription)")
        }
        // A retry field does not interrupt the event around it.
        #expect(Self.parse("data: a\nretry: 10\ndata: b\n\n") == [.retry(10), Self.event("a\nb")])
    }

    @Test("comments lose one leading space and come out in stream order")
    func comments() {
        #expect(Self.parse(":heartbeat\n: heartbeat\n:  two\n:\n") == [.comment("heartbeat"), .comment("heartbeat"), .comment(" two"), .comment("")])
        #expect(Self.parse("data: a\n: ping\ndata: b\n\n") == [.comment("ping"), Self.event("a\nb")])
    }

    @Test("unknown fields and wrongly cased names are ignored")
    func unknownFields() {
        #expect(Self.parse("foo: bar\ndata: x\nfoo\n\n") == [Self.event("x")])
        #expect(Self.parse("Data: x\nEVENT: y\n\n").isEmpty)
        #expect(Self.parse(" data: x\n\n").isEmpty)
    }

    @Test("a BOM at the very start is skipped, even split across feeds; only one, and only there")
    func byteOrderMark() {
        #expect(Self.parse("\u{FEFF}data: x\n\n") == [Self.event("x")])
        #expect(Self.parse("\u{FEFF}: hi\n") == [.comment("hi")])
        var parser = SSEParser()
        #expect(parser.feed([0xEF]).isEmpty)
        #expect(parser.feed([0xBB]).isEmpty)
        #expect(parser.feed([0xBF] + Array("data: y\n\n".utf8)) == [Self.event("y")])
        // A second BOM is part of the field name, which is then unknown.
        #expect(Self.parse("\u{FEFF}\u{FEFF}data: x\n\n").isEmpty)
        // Not at the start of the stream, it is not skipped either.
        #expect(Self.parse("data: a\n\n\u{FEFF}data: b\n\n") == [Self.event("a")])
    }

    // MARK: - Line endings

    @Test("LF, CRLF and CR all end lines, and can be mixed")
    func lineEndings() {
        #expect(Self.parse("data: a\ndata: b\n\n") == [Self.event("a\nb")])
        #expect(Self.parse("data: a\r\ndata: b\r\n\r\n") == [Self.event("a\nb")])
        #expect(Self.parse("data: a\rdata: b\r\r") == [Self.event("a\nb")])
        #expect(Self.parse("data: a\r\ndata: b\rdata: c\n\r\n") == [Self.event("a\nb\nc")])
        // LF then CR is two line ends (a blank line in between), unlike CR then LF.
        #expect(Self.parse("data: a\n\rdata: b\n\n") == [Self.event("a"), Self.event("b")])
        #expect(Self.parse(": c\r\n\r\ndata: d\r\r") == [.comment("c"), Self.event("d")])
    }

    @Test("a CRLF split across two feeds is a single line end")
    func crlfAcrossFeeds() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: a\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\ndata: b\r\n\r".utf8)) == [Self.event("a\nb")])
        #expect(parser.feed(Array("\n".utf8)).isEmpty)
        #expect(parser.feed(Array("data: c\r".utf8)).isEmpty)
        #expect(parser.feed([UInt8]()).isEmpty)
        #expect(parser.feed(Array("\n\r".utf8)) == [Self.event("c")])
        // A CR at the end of a feed followed by something other than LF.
        #expect(parser.feed(Array("data: d\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\r".utf8)) == [Self.event("d")])
    }

    @Test("an event without its blank line is not emitted until the blank line arrives")
    func waitsForBlankLine() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: a".utf8)).isEmpty)
        #expect(parser.feed(Array("bc".utf8)).isEmpty)
        #expect(parser.feed(Array("\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\n".utf8)) == [Self.event("abc")])
    }

    // MARK: - Chunking

    static let realisticStream: [UInt8] = Array(
        ([
            "\u{FEFF}: welcome\r\n",
            "retry: 2500\r\n",
            "\r\n",
            "id: 1\r\n",
            "event: run.started\r\n",
            "data: {\"run\":\"abc\",\"title\":\"caf\u{E9} \u{1F680}\"}\r\n",
            "\r\n",
            ": heartbeat\n",
            "\n",
            "id: 2\r",
            "data: line one\r",
            "data:line two\r",
            "data:\r",
            "\r",
            "data: no id here, still 2\n",
            "\n",
            "event: end\r\n",
            "id: 3\r\n",
            "data\r\n",
            "\r\n",
            "data: trailing, unterminated",
        ] as [String]).joined().utf8)

    static let realisticOutputs: [Output] = [
        .comment("welcome"),
        .retry(2500),
        event("{\"run\":\"abc\",\"title\":\"caf\u{E9} \u{1F680}\"}", type: "run.started", id: "1"),
        .comment("heartbeat"),
        event("line one\nline two\n", id: "2"),
        event("no id here, still 2", id: "2"),
        event("", type: "end", id: "3"),
    ]

    @Test("a realistic stream parses as expected when fed whole")
    func realisticWhole() {
        var parser = SSEParser()
        #expect(parser.feed(Self.realisticStream) == Self.realisticOutputs)
        #expect(parser.lastEventID == "3")
    }

    @Test("splitting a realistic stream at every byte boundary gives the same outputs")
    func realisticEverySplit() {
        let bytes = Self.realisticStream
        for split in 0...bytes.count {
            var parser = SSEParser()
            let outputs = parser.feed(bytes[..<split]) + parser.feed(bytes[split...])
            #expect(outputs == Self.realisticOutputs, "split at \(split)")
            #expect(parser.lastEventID == "3")
        }
    }

    @Test("feeding a realistic stream one byte at a time gives the same outputs")
    func realisticByteByByte() {
        var parser = SSEParser()
        var outputs: [Output] = []
        for byte in Self.realisticStream {
            outputs += parser.feed(CollectionOfOne(byte))
        }
        #expect(outputs == Self.realisticOutputs)
    }

    @Test("feeding a realistic stream in pseudo-random chunks gives the same outputs")
    func realisticRandomChunks() {
        let bytes = Self.realisticStream
        var state: UInt64 = 0x1234_5678
        for _ in 0..<200 {
            var parser = SSEParser()
            var outputs: [Output] = []
            var start = 0
            while start < bytes.count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let length = Int((state >> 33) % 12)
                let end = min(bytes.count, start + length)
                outputs += parser.feed(bytes[start..<end])
                start = end
            }
            #expect(outputs == Self.realisticOutputs)
        }
    }

    @Test("a non-contiguous byte sequence is accepted too")
    func nonContiguousSequence() {
        var parser = SSEParser()
        let bytes = "data: lazy\n\n".utf8.lazy.map { $0 }
        #expect(parser.feed(bytes) == [Self.event("lazy")])
    }

    // MARK: - Decoding and size

    @Test("invalid UTF-8 is replaced, and a character split across feeds is decoded whole")
    func invalidUTF8() {
        var parser = SSEParser()
        let bytes: [UInt8] = Array("data: ".utf8) + [0xFF, 0x61, 0xC3] + Array("\n".utf8) + Array("id: ".utf8) + [0xE2, 0x82] + Array("\n\n".utf8)
        #expect(parser.feed(bytes) == [Self.event("\u{FFFD}a\u{FFFD}", id: "\u{FFFD}")])

        var split = SSEParser()
        #expect(split.feed(Array("data: caf".utf8) + [0xC3]).isEmpty)
        #expect(split.feed([0xA9] + Array("\n\n".utf8)) == [Self.event("caf\u{E9}")])
    }

    @Test("a 5 MB data line is handled whole and in small chunks")
    func hugeLine() {
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 5_000_000)
        let bytes = Array("data: ".utf8) + payload + Array("\r\n\r\n".utf8)

        var whole = SSEParser()
        let outputs = whole.feed(bytes)
        #expect(outputs.count == 1)
        guard case .event(let event)? = outputs.first else {
            Issue.record("no event")
            return
        }
        #expect(event.data.utf8.count == 5_000_000)
        #expect(event.data.utf8.allSatisfy { $0 == UInt8(ascii: "x") })

        var chunked = SSEParser()
        var chunkedOutputs: [Output] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + 4096)
            chunkedOutputs += chunked.feed(bytes[start..<end])
            start = end
        }
        #expect(chunkedOutputs == outputs)
    }
}
