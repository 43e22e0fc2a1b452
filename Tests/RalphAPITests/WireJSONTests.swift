import Foundation
import Testing

import RalphAPI

/// Pins the one JSON configuration of the contract. Server, SDK, terminal client and the files they keep all write
/// through `WireJSON`, and tests across the project compare bytes, so a change here is a change of the contract: it
/// must fail here first, on purpose.
@Suite("WireJSON: the one JSON configuration")
struct WireJSONTests {
    @Test("the compact encoder sorts keys and leaves slashes unescaped, nothing else")
    func compactOptions() {
        #expect(WireJSON.encoder().outputFormatting == [.sortedKeys, .withoutEscapingSlashes])
    }

    @Test("the pretty encoder is the compact one, indented")
    func prettyOptions() {
        #expect(WireJSON.prettyEncoder().outputFormatting == [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// Foundation's default strategies, as `String(describing:)` names them: keys as declared, dates and data left
    /// to their own `Codable` conformance (base64 for data), non-conforming floats refused.
    static let defaultStrategies = ["useDefaultKeys", "deferredToDate", "base64", "throw"]

    /// The two encoders of ``WireJSON``, as test arguments.
    enum EncoderKind: String, CaseIterable, Sendable {
        case compact, pretty

        var encoder: JSONEncoder { self == .compact ? WireJSON.encoder() : WireJSON.prettyEncoder() }
    }

    @Test("both encoders keep Foundation's default strategies (keys as declared, no date or data conversion)", arguments: EncoderKind.allCases)
    func encoderStrategies(_ which: EncoderKind) {
        let encoder = which.encoder
        let strategies = [
            String(describing: encoder.keyEncodingStrategy), String(describing: encoder.dateEncodingStrategy),
            String(describing: encoder.dataEncodingStrategy), String(describing: encoder.nonConformingFloatEncodingStrategy),
        ]
        #expect(strategies == Self.defaultStrategies, "keyEncodingStrategy, dateEncodingStrategy, dataEncodingStrategy, nonConformingFloatEncodingStrategy")
    }

    /// The original RalphMobile client decodes with a default `JSONDecoder`; ours must read exactly what it reads.
    @Test("the decoder is Foundation's default one")
    func decoderStrategies() {
        let decoder = WireJSON.decoder()
        let strategies = [
            String(describing: decoder.keyDecodingStrategy), String(describing: decoder.dateDecodingStrategy),
            String(describing: decoder.dataDecodingStrategy), String(describing: decoder.nonConformingFloatDecodingStrategy),
        ]
        #expect(strategies == Self.defaultStrategies, "keyDecodingStrategy, dateDecodingStrategy, dataDecodingStrategy, nonConformingFloatDecodingStrategy")
        #expect(!decoder.allowsJSON5)
        #expect(!decoder.assumesTopLevelDictionary)
    }

    @Test("the bytes of a sample value: keys sorted, slashes as written, null kept, no spaces")
    func compactBytes() throws {
        let end = StreamEnd(mode: .complete, status: .stopped, reason: nil, lastEventId: 44, ts: "2026-02-05T09:30:00.500Z")
        #expect(String(decoding: try WireJSON.encode(end), as: UTF8.self)
            == #"{"last_event_id":44,"mode":"complete","reason":null,"status":"stopped","topic":"stream.end","ts":"2026-02-05T09:30:00.500Z"}"#)
        let error = ErrorResponse(prefix: .invalidPath, detail: "../etc/passwd")
        #expect(String(decoding: try WireJSON.encode(error), as: UTF8.self) == #"{"error":"invalid_path: ../etc/passwd"}"#)
        #expect(try WireJSON.encode(error) == WireJSON.encoder().encode(error), "encode(_:) is encoder().encode(_:)")
    }

    @Test("the bytes of a sample value, indented: two spaces, ` : ` between key and value, keys sorted")
    func prettyBytes() throws {
        let file = ScratchpadResponse(content: "# Plan", updatedAt: nil, path: "/work/proj/.ralph/agent/scratchpad.md")
        let text = String(decoding: try WireJSON.encodePretty(file), as: UTF8.self)
        #expect(text == """
            {
              "content" : "# Plan",
              "path" : "/work/proj/.ralph/agent/scratchpad.md",
              "updated_at" : null
            }
            """)
        #expect(try WireJSON.encodePretty(file) == WireJSON.prettyEncoder().encode(file))
    }

    @Test("decoding reads what encoding wrote, and reports a missing key with its name")
    func decodeStrictness() throws {
        let reset = StreamReset(resumedAfter: "17:3fa2c901", reason: "replaced", ts: "2026-02-05T09:30:00.500Z")
        #expect(try WireJSON.decode(StreamReset.self, from: WireJSON.encode(reset)) == reset)
        #expect(try WireJSON.decode(StreamReset.self, from: Data(#"{"resumed_after":"1","reason":"r","topic":"stream.reset","ts":"t","extra":1}"#.utf8))
            == StreamReset(resumedAfter: "1", reason: "r", ts: "t"), "unknown keys are ignored")
        do {
            _ = try WireJSON.decode(StreamReset.self, from: Data(#"{"reason":"r","topic":"stream.reset","ts":"t"}"#.utf8))
            Issue.record("a missing required key decoded")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "resumed_after")
        }
    }
}
