import Foundation
import Testing

import RalphAPI

/// One value of a wire type and the check that it survives the wire unchanged.
struct WireSample: Sendable, CustomTestStringConvertible {
    /// The type's name as declared (generic arguments dropped), matched against the module's sources.
    let typeName: String
    /// What the sample is, for the test report.
    let label: String
    let check: @Sendable () throws -> Void

    var testDescription: String { "\(typeName): \(label)" }

    /// Encode with ``WireJSON`` → decode → equal, and encoding the decoded value gives the same bytes.
    static func codable<T: Codable & Hashable & Sendable>(_ value: T, _ label: String = "full") -> WireSample {
        WireSample(typeName: declaredName(T.self), label: label) {
            let data = try WireJSON.encode(value)
            let decoded = try WireJSON.decode(T.self, from: data)
            #expect(decoded == value, "\(String(decoding: data, as: UTF8.self))")
            #expect(try WireJSON.encode(decoded) == data, "the same bytes again")
        }
    }

    /// One sample per case.
    static func cases<T: Codable & Hashable & Sendable>(_ values: [T]) -> [WireSample] {
        values.map { codable($0, "\($0)") }
    }

    static func declaredName(_ type: Any.Type) -> String {
        let name = String(describing: type)
        return name.firstIndex(of: "<").map { String(name[..<$0]) } ?? name
    }
}

@Suite("Wire types round-trip")
struct WireRoundTripTests {
    static let samples: [WireSample] = WireSamples.sessions + WireSamples.chat + WireSamples.chatEvents
        + WireSamples.autoReply + WireSamples.workspace + WireSamples.notifications
        + WireSamples.signals
        + WireSamples.control
        + WireSamples.rpc

    @Test("encode → decode → equal, bytes stable", arguments: samples)
    func roundTrip(_ sample: WireSample) throws {
        try sample.check()
    }

    /// A new wire type without a sample fails here, so the round-trip suite cannot silently fall behind the module.
    @Test("every public Codable type of RalphAPI (and the three frame types that are not Codable) has a sample")
    func everyTypeHasASample() throws {
        let declared = try Self.declaredWireTypes()
        let sampled = Set(Self.samples.map(\.typeName))
        #expect(declared.count > 100, "the scan found the module's types")
        #expect(declared.subtracting(sampled).sorted() == [], "types without a round-trip sample")
        #expect(sampled.subtracting(declared).sorted() == [], "samples of types the scan does not see")
    }

    /// The top-level `public struct|enum X…Codable` declarations and `extension X: Codable` under `Sources/RalphAPI`,
    /// plus the frame values that travel as JSON without being Codable (``ChatEvent``, ``WorkflowEvent``,
    /// ``SessionEventID``).
    static func declaredWireTypes() throws -> Set<String> {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/RalphAPI")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        let declaration = try Regex(#"^(?:public (?:struct|enum)|extension) (\w+)[^{]*\bCodable\b"#).anchorsMatchLineEndings()
        var names: Set<String> = ["ChatEvent", "WorkflowEvent", "SessionEventID"]
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }
}
