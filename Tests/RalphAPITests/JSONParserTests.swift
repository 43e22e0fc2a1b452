import Foundation
import Testing

@testable import RalphAPI

/// Parses a string, recording a test issue (and returning nil) when it does not parse.
private func parsed(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
    do {
        return try JSONParser.parse(text)
    } catch {
        Issue.record("expected \(text.debugDescription) to parse, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Parses raw bytes, recording a test issue (and returning nil) when they do not parse.
private func parsed(bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
    do {
        return try JSONParser.parse(bytes)
    } catch {
        Issue.record("expected bytes \(bytes) to parse, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Whether parsing `text` fails with a `JSONParseError` (as opposed to succeeding).
private func fails(_ text: String) -> Bool {
    (try? JSONParser.parse(text)) == nil
}

private func fails(bytes: [UInt8]) -> Bool {
    (try? JSONParser.parse(bytes)) == nil
}

@Suite("JSON parser")
struct JSONParserTests {
    // MARK: Objects

    @Test("objects keep their keys in written order")
    func keyOrder() throws {
        let value = try JSONParser.parse(#"{"zeta":1,"alpha":2,"mid":3,"b":4}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["zeta", "alpha", "mid", "b"])
        #expect(object["alpha"] == .int(2))
        #expect(object["missing"] == nil)
    }

    @Test("duplicate keys are all kept and a lookup returns the last one")
    func duplicateKeys() throws {
        let object = try #require(try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#).objectValue)
        #expect(object.count == 3)
        #expect(object.keys == ["a", "b", "a"])
        #expect(object["a"] == .int(3))
        #expect(object["b"] == .int(2))
    }

    @Test("setting a key through the subscript replaces the last occurrence, nil removes it, a new key is appended")
    func subscriptSetter() throws {
        var object = try #require(try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#).objectValue)
        object["a"] = "x"
        #expect(object.members.map(\.value) == [.int(1), .int(2), .string("x")])
        object["b"] = nil
        #expect(object.keys == ["a", "a"])
        object["c"] = true
        #expect(object.keys == ["a", "a", "c"])
        #expect(object["c"] == .bool(true))
    }

    @Test("empty object and empty array parse, with or without inner whitespace")
    func emptyContainers() {
        #expect(parsed("{}") == .object(JSONObject()))
        #expect(parsed("{ \n }") == .object(JSONObject()))
        #expect(parsed("[]") == .array([]))
        #expect(parsed("[ \t ]") == .array([]))
    }

    @Test("literals and nested containers produce the matching values")
    func literalsAndNesting() {
        let value = parsed(#"{"t":true,"f":false,"n":null,"arr":[1,[2,{"x":"y"}]]}"#)
        let expected: JSONValue = ["t": true, "f": false, "n": nil, "arr": [1, [2, ["x": "y"]]]]
        #expect(value == expected)
        #expect(value?.objectValue?["n"]?.isNull == true)
        #expect(value?.objectValue?["t"]?.boolValue == true)
    }

    // MARK: Numbers

    @Test("integers stay integers and anything with a fraction or exponent is a double")
    func intsAndDoubles() {
        #expect(parsed("1") == .int(1))
        #expect(parsed("0") == .int(0))
        #expect(parsed("-0") == .int(0))
        #expect(parsed("-42") == .int(-42))
        #expect(parsed("1.5") == .double(1.5))
        #expect(parsed("-0.25") == .double(-0.25))
        #expect(parsed("1e3") == .double(1000))
        #expect(parsed("1E3") == .double(1000))
        #expect(parsed("2.5e-1") == .double(0.25))
        #expect(parsed("1e+2") == .double(100))
        #expect(parsed("1.0") == .double(1.0))
    }

    @Test("the Int64 limits are integers and anything beyond becomes a double")
    func bigIntegers() {
        #expect(parsed("9223372036854775807") == .int(Int.max))
        #expect(parsed("-9223372036854775808") == .int(Int.min))
        #expect(parsed("9223372036854775808") == .double(9_223_372_036_854_775_808.0))
        #expect(parsed("-9223372036854775809") == .double(-9_223_372_036_854_775_809.0))
        #expect(parsed("123456789012345678901234567890") == .double(123_456_789_012_345_678_901_234_567_890.0))
    }

    @Test("malformed numbers are errors", arguments: ["01", "-", "1.", ".5", "+1", "1e", "1e+", "--1", "0x10", "1.2.3", "-.5"])
    func malformedNumbers(_ text: String) {
        #expect(fails(text))
    }

    @Test("numeric accessors convert between ints, integral doubles and decimal strings")
    func numericAccessors() {
        #expect(JSONValue.int(5).intValue == 5)
        #expect(JSONValue.double(3.0).intValue == 3)
        #expect(JSONValue.double(3.5).intValue == nil)
        #expect(JSONValue.string("7").intValue == 7)
        #expect(JSONValue.string("7x").intValue == nil)
        #expect(JSONValue.int(2).doubleValue == 2.0)
        #expect(JSONValue.string("2").doubleValue == nil)
        #expect(JSONValue.null.intValue == nil)
    }

    // MARK: Strings

    @Test("every simple escape is decoded")
    func simpleEscapes() {
        #expect(parsed(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
    }

    @Test("unicode escapes decode, including upper-case hex and surrogate pairs")
    func unicodeEscapes() {
        #expect(parsed(#""caf\u00e9""#) == .string("café"))
        #expect(parsed(#""caf\u00E9""#) == .string("café"))
        #expect(parsed(#""\u0041\u0000z""#) == .string("A\u{0}z"))
        #expect(parsed(#""\ud83d\ude00""#) == .string("😀"))
        #expect(parsed(#""x\uD83D\uDE00y""#) == .string("x😀y"))
    }

    @Test("lone surrogates become U+FFFD and the text around them survives")
    func loneSurrogates() {
        // High surrogate followed by plain text.
        #expect(parsed(#""a\ud83db""#) == .string("a\u{FFFD}b"))
        // High surrogate at the end of the string.
        #expect(parsed(#""a\ud83d""#) == .string("a\u{FFFD}"))
        // Lone low surrogate.
        #expect(parsed(#""\ude00x""#) == .string("\u{FFFD}x"))
        // High surrogate followed by an escape that is not a low surrogate: that escape is kept.
        #expect(parsed(#""\ud83d\u0041""#) == .string("\u{FFFD}A"))
        // Two high surrogates in a row.
        #expect(parsed(#""\ud83d\ud83d\ude00""#) == .string("\u{FFFD}😀"))
    }

    @Test("invalid escapes are errors", arguments: [#""\x""#, #""\u12""#, #""\u12g4""#, #""\U0041""#, #""\'""#])
    func invalidEscapes(_ text: String) {
        #expect(fails(text))
    }

    @Test("invalid UTF-8 inside a string is repaired with U+FFFD rather than failing")
    func invalidUTF8IsRepaired() {
        // Fast path (no escapes): stray 0xFF byte.
        let plain: [UInt8] = Array(#"{"a":"x"#.utf8) + [0xFF] + Array(#"y"}"#.utf8)
        #expect(parsed(bytes: plain) == ["a": "x\u{FFFD}y"])
        // Slow path (with an escape before the bad byte): truncated two-byte sequence.
        let escaped: [UInt8] = Array(#"["\n"#.utf8) + [0xC3] + Array(#"z"]"#.utf8)
        #expect(parsed(bytes: escaped) == ["\n\u{FFFD}z"])
        // Valid multi-byte UTF-8 is untouched.
        #expect(parsed(bytes: Array(#""é😀""#.utf8)) == .string("é😀"))
    }

    @Test("unterminated strings are errors", arguments: [#"""#, #""abc"#, #""abc\"#, #""ab\""#, #"{"a":"b}"#, #"["x"#, #""\n"#])
    func unterminatedStrings(_ text: String) {
        #expect(fails(text))
    }

    // MARK: Errors

    @Test("every proper prefix of a valid document is an error")
    func truncatedPrefixes() throws {
        let document = #"{"a":[1,2.5,-3e2,true,false,null,"x\u00e9y\ud83d\ude00"],"b":{"c":"d","e":[]},"f":"g"}"#
        let bytes = Array(document.utf8)
        _ = try JSONParser.parse(bytes)  // the whole document is valid
        for length in 0..<bytes.count {
            let prefix = Array(bytes[0..<length])
            #expect(fails(bytes: prefix), "prefix of \(length) bytes parsed: \(String(decoding: prefix, as: UTF8.self))")
        }
    }

    @Test("content after the value is an error", arguments: ["{} x", "[1]]", "1 2", "{}{}", "null,", "\"a\"\"b\"", "true false", "[1] // c"])
    func trailingGarbage(_ text: String) {
        #expect(fails(text))
    }

    @Test("content before the value is an error", arguments: ["x{}", ",[1]", "]", "}", ":1", "\u{FEFF}{}", "#{}"])
    func leadingGarbage(_ text: String) {
        #expect(fails(text))
    }

    @Test("bare words are errors", arguments: ["hello", "tru", "nul", "True", "NULL", "undefined", "NaN", "Infinity", "-Infinity", "fals", "nulls"])
    func bareWords(_ text: String) {
        #expect(fails(text))
    }

    @Test("structural errors are reported", arguments: [#"{"a" 1}"#, #"{"a":}"#, #"{a:1}"#, #"{"a":1,}"#, "[1,]", "[1 2]", "{,}", "[,1]", #"{"a":1 "b":2}"#, ""])
    func structuralErrors(_ text: String) {
        #expect(fails(text))
    }

    @Test("100 000 nested '[' throw instead of overflowing the stack")
    func deepNestingThrows() {
        let open = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(open) }
        let balanced = open + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(balanced) }
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(objects) }
    }

    @Test("nesting up to maxDepth is accepted and one more level is rejected")
    func depthLimit() throws {
        let depth = JSONParser.maxDepth
        let atLimit = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        _ = try JSONParser.parse(atLimit)
        let overLimit = "[" + atLimit + "]"
        #expect(throws: JSONParseError.self) { try JSONParser.parse(overLimit) }
    }

    @Test("the error reports the offset where parsing stopped")
    func errorOffset() {
        do throws(JSONParseError) {
            _ = try JSONParser.parse("[1, 2] x")
            Issue.record("expected an error")
        } catch {
            #expect(error.offset == 7)
            #expect(error.description.contains("at byte 7"))
        }
    }

    @Test("whitespace around the value is allowed")
    func surroundingWhitespace() {
        #expect(parsed(" \n\t\r{\"a\" : [ 1 , 2 ] }\r\n \t") == ["a": [1, 2]])
        #expect(parsed("  42  ") == .int(42))
        #expect(parsed("\n\"s\"\n") == .string("s"))
    }

    @Test("a non-contiguous byte collection parses the same as an array")
    func nonContiguousCollection() throws {
        let reversed = Array(#"}]2,1[:"a"{"#.utf8).reversed()
        #expect(try JSONParser.parse(reversed) == ["a": [1, 2]])
    }
}

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("output is compact and keeps key order")
    func compact() {
        let value: JSONValue = ["z": 1, "a": [true, nil, "x"], "m": ["k": false], "e": [], "o": .object(JSONObject())]
        #expect(JSONWriter.string(value) == #"{"z":1,"a":[true,null,"x"],"m":{"k":false},"e":[],"o":{}}"#)
    }

    @Test("duplicate keys are written as they are held")
    func duplicateKeysWritten() throws {
        let value = try JSONParser.parse(#"{"a":1,"a":2}"#)
        #expect(JSONWriter.string(value) == #"{"a":1,"a":2}"#)
    }

    @Test("strings with control characters are escaped and the output stays on one line")
    func controlCharacters() {
        let text = "line1\nline2\r\ttab \"q\" back\\slash \u{0}\u{1}\u{8}\u{C}\u{1B}\u{1F} end é😀/"
        let output = JSONWriter.string(["k\nkey": .string(text)])
        #expect(
            output == #"{"k\nkey":"line1\nline2\r\ttab \"q\" back\\slash \u0000\u0001\u0008\u000c\u001b\u001f end é😀/"}"#
        )
        let bytes = JSONWriter.bytes(.string(text))
        #expect(!bytes.contains(0x0A))
        #expect(!bytes.contains(0x0D))
        #expect(bytes.allSatisfy { $0 >= 0x20 })
    }

    @Test("doubles are written so they read back as doubles")
    func doubles() {
        #expect(JSONWriter.string(.double(1.5)) == "1.5")
        #expect(JSONWriter.string(.double(2)) == "2.0")
        #expect(JSONWriter.string(.double(-3)) == "-3.0")
        #expect(JSONWriter.string(.double(0.1)) == "0.1")
        #expect(JSONWriter.string(.int(2)) == "2")
        #expect(JSONWriter.string(.int(Int.min)) == "-9223372036854775808")
        for d in [1.5, 2.0, -3.0, 0.1, 1e20, 1.5e300, .leastNonzeroMagnitude, -1e-7, 123_456_789.123, 1e15, 1e16] {
            let text = JSONWriter.string(.double(d))
            #expect((try? JSONParser.parse(text)) == .double(d), "\(d) written as \(text)")
        }
    }

    @Test("NaN and infinities are written as null")
    func nonFinite() {
        #expect(JSONWriter.string(.double(.nan)) == "null")
        #expect(JSONWriter.string(.double(.infinity)) == "null")
        #expect(JSONWriter.string(.double(-.infinity)) == "null")
        #expect(JSONWriter.string([.double(.nan), 1]) == "[null,1]")
    }

    static let roundTripValues: [JSONValue] = [
        .null, true, false, 0, -1, .int(Int.max), .int(Int.min), 0.5, -2.25, 1e-10, 6.02e23,
        "", "plain", "quote \" backslash \\ slash /", "ctl \u{0}\u{7}\u{1F}\u{7F}\n\r\t", "é 😀 中文 \u{FFFD}",
        [], [1, "two", nil, [3.5]], .object(JSONObject()),
        ["b": 1, "a": ["nested": [true, ["deep": "x"]]], "c": nil],
        .object(JSONObject([(key: "dup", value: 1), (key: "dup", value: 2)])),
        ["\u{1}key\n": "v", "": ""],
    ]

    @Test("parse(write(v)) gives back v", arguments: roundTripValues)
    func roundTrip(_ value: JSONValue) throws {
        let written = JSONWriter.string(value)
        #expect(try JSONParser.parse(written) == value)
        #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
        #expect(!written.contains("\n"))
    }

    @Test("write(into:) appends to what is already in the buffer")
    func writeIntoAppends() {
        var out = Array("data: ".utf8)
        JSONWriter.write(["a": 1], into: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"data: {"a":1}"#)
    }
}
