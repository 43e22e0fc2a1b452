import RalphAPI
import Testing

@testable import RalphMobileKit

@Suite("The emit payload rule")
struct EmitPayloadTests {
    @Test("empty or blank text is no payload")
    func emptyIsNone() {
        #expect(EmitPayload.parse("") == .success(nil))
        #expect(EmitPayload.parse("  \n\t ") == .success(nil))
    }

    @Test("text that starts like JSON is sent as that JSON, keys in order")
    func jsonIsJSON() throws {
        let parsed = try EmitPayload.parse(#"  {"task": "build", "n": 2, "tags": ["a"]}"#).get()
        #expect(parsed == .object(JSONObject([("task", .string("build")), ("n", .int(2)), ("tags", .array([.string("a")]))])))
        #expect(try EmitPayload.parse("[1, 2]").get() == .array([.int(1), .int(2)]))
    }

    @Test("text that starts like JSON but does not parse is refused with the parser's reason")
    func brokenJSONIsRefused() {
        guard case .failure(let problem) = EmitPayload.parse(#"{"task": "#) else {
            Issue.record("a broken object was accepted")
            return
        }
        #expect(problem.message.hasPrefix("this looks like JSON but does not parse:"))
        #expect(problem.message.contains("byte"))
        if case .success = EmitPayload.parse("[1, 2") { Issue.record("a broken array was accepted") }
    }

    @Test("anything else is sent as the text, exactly as typed (numbers and quoted strings included)")
    func otherTextIsText() {
        #expect(EmitPayload.parse("tests: pass\nlint: pass") == .success(.string("tests: pass\nlint: pass")))
        #expect(EmitPayload.parse(" 42 ") == .success(.string(" 42 ")))
        #expect(EmitPayload.parse(#""quoted""#) == .success(.string(#""quoted""#)))
    }
}
