import RalphAPI
import Testing

@testable import AgentRunner

@Suite("Lines written to the Claude CLI's stdin")
struct ClaudeInputTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("a user turn, with escaping")
    func user() {
        #expect(Self.text(ClaudeInput.user(text: "Run the tests")) == #"{"type":"user","message":{"role":"user","content":"Run the tests"}}"# + "\n")
        #expect(Self.text(ClaudeInput.user(text: "a \"b\"\nc")) == #"{"type":"user","message":{"role":"user","content":"a \"b\"\nc"}}"# + "\n")
    }

    @Test("allow sends the original input, and updated permissions when given")
    func allow() {
        let input: JSONValue = ["command": "rm -f /tmp/x", "description": "Remove temp file"]
        #expect(
            Self.text(ClaudeInput.allow(requestID: "req_7", input: input))
                == #"{"type":"control_response","response":{"subtype":"success","request_id":"req_7","response":{"behavior":"allow","updatedInput":{"command":"rm -f /tmp/x","description":"Remove temp file"}}}}"#
                + "\n"
        )
        #expect(
            Self.text(ClaudeInput.allow(requestID: "req_7", input: input, updatedPermissions: [["type": "addRules", "rules": [["toolName": "Bash"]], "behavior": "allow", "destination": "session"]]))
                == #"{"type":"control_response","response":{"subtype":"success","request_id":"req_7","response":{"behavior":"allow","updatedInput":{"command":"rm -f /tmp/x","description":"Remove temp file"},"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"session"}]}}}"#
                + "\n"
        )
    }

    @Test("deny, with and without interrupt")
    func deny() {
        #expect(
            Self.text(ClaudeInput.deny(requestID: "req_7", message: "User denied on phone"))
                == #"{"type":"control_response","response":{"subtype":"success","request_id":"req_7","response":{"behavior":"deny","message":"User denied on phone"}}}"#
                + "\n"
        )
        #expect(
            Self.text(ClaudeInput.deny(requestID: "req_8", message: "Stop", interrupt: true))
                == #"{"type":"control_response","response":{"subtype":"success","request_id":"req_8","response":{"behavior":"deny","message":"Stop","interrupt":true}}}"#
                + "\n"
        )
    }

    @Test("interrupt")
    func interrupt() {
        #expect(Self.text(ClaudeInput.interrupt(requestID: "c-42")) == #"{"type":"control_request","request_id":"c-42","request":{"subtype":"interrupt"}}"# + "\n")
    }

    @Test("a user line carries the uuid the CLI names the turn by")
    func userWithUUID() {
        #expect(Self.text(ClaudeInput.user(text: "hi")) == #"{"type":"user","message":{"role":"user","content":"hi"}}"# + "\n")
        #expect(Self.text(ClaudeInput.user(text: "hi", uuid: "t_1")) == #"{"type":"user","uuid":"t_1","message":{"role":"user","content":"hi"}}"# + "\n")
    }

    @Test("every line is one line of JSON that decodes back")
    func roundTrip() throws {
        for line in [
            ClaudeInput.user(text: "x\ny"), ClaudeInput.allow(requestID: "r", input: ["a": [1, 2]]), ClaudeInput.deny(requestID: "r", message: "m\n"),
            ClaudeInput.interrupt(requestID: "i"),
        ] {
            #expect(line.last == 0x0A)
            #expect(line.dropLast().contains(0x0A) == false)
            _ = try JSONParser.parse(line)
        }
    }
}
