import RalphAPI
import Testing

@testable import AgentRunner

@Suite("Decoding the Claude CLI's stream-json lines")
struct ClaudeStreamDecoderTests {
    static func decode(_ line: String) -> [AgentEvent] {
        ClaudeStreamDecoder.decode(line: Array(line.utf8))
    }

    static func parse(_ json: String) -> JSONValue {
        (try? JSONParser.parse(json)) ?? .null
    }

    @Test("system init: subtype, session id and model")
    func systemInit() {
        let line = #"""
            {"type":"system","subtype":"init","cwd":"/home/u/app","session_id":"7c1f0c7e-2b7a-4d55-9d3e-0a1b2c3d4e5f","tools":["Bash","Read","Edit","Write","Glob","Grep"],"mcp_servers":[],"model":"claude-sonnet-4-5-20250929","permissionMode":"default","slash_commands":["compact","cost"],"apiKeySource":"none","claude_code_version":"2.1.40","uuid":"e1"}
            """#
        #expect(
            Self.decode(line) == [
                .system(
                    AgentSystem(
                        subtype: "init", sessionID: "7c1f0c7e-2b7a-4d55-9d3e-0a1b2c3d4e5f", model: "claude-sonnet-4-5-20250929", permissionMode: "default",
                        version: "2.1.40"
                    )
                )
            ]
        )
        #expect(Self.decode(#"{"type":"system","subtype":"status","status":"x"}"#) == [.system(AgentSystem(subtype: "status", status: "x"))])
    }

    @Test("lines of the real CLI 2.1.330: lifecycle, api_retry, task_notification, status with a mode, a result naming our uuid")
    func realCLILines() {
        #expect(
            Self.decode(#"{"type":"command_lifecycle","command_uuid":"x1","state":"started","uuid":"7c40","session_id":"1c95"}"#)
                == [.lifecycle(commandUUID: "x1", state: "started")]
        )
        #expect(
            Self.decode(
                #"{"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"retry_delay_ms":2373,"error_status":529,"error":"overloaded","session_id":"1c95","uuid":"235b"}"#
            ) == [.apiRetry(attempt: 3, maxRetries: 10, error: "overloaded", errorStatus: 529, retryDelayMs: 2373)]
        )
        #expect(
            Self.decode(
                #"{"type":"system","subtype":"task_notification","task_id":"a81e","run_id":"0mwt","tool_use_id":"toolu_1","status":"completed","summary":"sub says 42","summary_is_report":true}"#
            ) == [.taskNotification(taskID: "a81e", status: "completed", summary: "sub says 42")]
        )
        #expect(
            Self.decode(#"{"type":"system","subtype":"status","status":null,"permissionMode":"acceptEdits","uuid":"00ea","session_id":"2782"}"#)
                == [.system(AgentSystem(subtype: "status", sessionID: "2782", permissionMode: "acceptEdits"))]
        )
        #expect(
            Self.decode(#"{"type":"system","subtype":"status","status":"requesting","session_id":"1c95","user_message_uuids":["x1"]}"#)
                == [.system(AgentSystem(subtype: "status", sessionID: "1c95", status: "requesting", userMessageUUIDs: ["x1"]))]
        )
        let failed = #"""
            {"duration_api_ms":88,"stop_reason":"stop_sequence","session_id":"74ce","total_cost_usd":0.0008,"permission_denials":[],"terminal_reason":"api_error","is_error":true,"num_turns":1,"subtype":"success","api_error_status":400,"api_error_type":"api_error","result":"API Error: 400 Overloaded","type":"result","duration_ms":562,"uuid":"8261","user_message_uuid":"x2","user_message_uuids":["x2"],"queued_turn_count":0,"result_index":1,"model_usage_since_last_result":{}}
            """#
        guard case .result(let result)? = Self.decode(failed).first else {
            Issue.record("not a result")
            return
        }
        #expect(result.isError && result.subtype == "success")
        #expect(result.apiErrorStatus == 400)
        #expect(result.userMessageUUIDs == ["x2"])
        #expect(result.totalCostUSD == 0.0008)
        #expect(result.errorText == "API Error: 400 Overloaded")
    }

    @Test("text deltas from stream events; other stream events are kept raw")
    func streamEvents() {
        let delta = #"""
            {"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me "}},"session_id":"7c1f…","parent_tool_use_id":null,"uuid":"e2"}
            """#
        #expect(Self.decode(delta) == [.textDelta(text: "Let me ", parentToolUseID: nil)])
        let sub = #"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}},"parent_tool_use_id":"toolu_9"}"#
        #expect(Self.decode(sub) == [.textDelta(text: "x", parentToolUseID: "toolu_9")])
        let json = #"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\""}}}"#
        #expect(Self.decode(json) == [.other(type: "stream_event", raw: Self.parse(json))])
        let start = #"{"type":"stream_event","event":{"type":"message_start","message":{}}}"#
        #expect(Self.decode(start) == [.other(type: "stream_event", raw: Self.parse(start))])
    }

    @Test("assistant lines: one output per content block")
    func assistant() {
        let text = #"""
            {"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Let me look at the tests."}],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":8}},"parent_tool_use_id":null,"session_id":"7c1f…","uuid":"e3"}
            """#
        #expect(Self.decode(text) == [.assistantText(messageID: "msg_1", text: "Let me look at the tests.", parentToolUseID: nil)])
        let tool = #"""
            {"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"swift test","description":"Run tests"}}],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":30}},"parent_tool_use_id":null,"session_id":"7c1f…","uuid":"e4"}
            """#
        #expect(
            Self.decode(tool) == [
                .toolUse(
                    messageID: "msg_1", toolUseID: "toolu_01", name: "Bash", input: ["command": "swift test", "description": "Run tests"],
                    parentToolUseID: nil
                )
            ]
        )
        let mixed = #"""
            {"type":"assistant","message":{"id":"m","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"Read","input":{}}]},"parent_tool_use_id":"toolu_p"}
            """#
        let outputs = Self.decode(mixed)
        #expect(outputs.count == 3)
        #expect(outputs.first == .other(type: "assistant", raw: Self.parse(mixed)))
        #expect(outputs.dropFirst().first == .assistantText(messageID: "m", text: "a", parentToolUseID: "toolu_p"))
        #expect(outputs.last == .toolUse(messageID: "m", toolUseID: "t", name: "Read", input: [:], parentToolUseID: "toolu_p"))
    }

    @Test("user lines: tool results (string or block content) and plain text")
    func user() {
        let line = #"""
            {"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"Test Suite 'All tests' passed","is_error":false}]},"parent_tool_use_id":null,"session_id":"7c1f…","uuid":"e5","tool_use_result":{"stdout":"…","stderr":"","interrupted":false}}
            """#
        #expect(Self.decode(line) == [.toolResults([AgentToolResult(toolUseID: "toolu_01", output: "Test Suite 'All tests' passed", isError: false)], parentToolUseID: nil)])
        let blocks = #"""
            {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"one"},{"type":"image","source":{}},{"type":"text","text":"two"}],"is_error":true},{"type":"tool_result","tool_use_id":"b"}]},"parent_tool_use_id":"p"}
            """#
        #expect(
            Self.decode(blocks) == [
                .toolResults(
                    [AgentToolResult(toolUseID: "a", output: "one\ntwo", isError: true), AgentToolResult(toolUseID: "b", output: "", isError: false)],
                    parentToolUseID: "p"
                )
            ]
        )
        #expect(
            Self.decode(#"{"type":"user","message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"}}"#) == [
                .userText("<local-command-stdout>ok</local-command-stdout>")
            ]
        )
        let replay = #"{"type":"user","message":{"content":[{"type":"text","text":"hi"}]},"isReplay":true}"#
        #expect(Self.decode(replay) == [.other(type: "user", raw: Self.parse(replay))])
    }

    @Test("can_use_tool control requests become permission requests")
    func permissionRequest() {
        let minimal = #"""
            {"type":"control_request","request_id":"req_1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"swift test","description":"Run tests"},"tool_use_id":"toolu_01","permission_suggestions":[]}}
            """#
        #expect(
            Self.decode(minimal) == [
                .permissionRequest(
                    AgentPermissionRequest(
                        requestID: "req_1", toolName: "Bash", input: ["command": "swift test", "description": "Run tests"], toolUseID: "toolu_01"
                    )
                )
            ]
        )
        let full = #"""
            {"type":"control_request","request_id":"req_7","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"rm -f /tmp/x","description":"Remove temp file"},"tool_use_id":"toolu_01","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"allow","destination":"session"}],"blocked_path":null,"decision_reason":"why"}}
            """#
        let suggestions = Self.parse(#"[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"allow","destination":"session"}]"#)
        #expect(
            Self.decode(full) == [
                .permissionRequest(
                    AgentPermissionRequest(
                        requestID: "req_7", toolName: "Bash", input: ["command": "rm -f /tmp/x", "description": "Remove temp file"], toolUseID: "toolu_01",
                        suggestions: suggestions, decisionReason: "why", blockedPath: nil
                    )
                )
            ]
        )
        let noID = #"{"type":"control_request","request":{"subtype":"can_use_tool","tool_name":"Bash"}}"#
        #expect(Self.decode(noID) == [.other(type: "control_request", raw: Self.parse(noID))])
        let hook = #"{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback"}}"#
        #expect(Self.decode(hook) == [.other(type: "control_request", raw: Self.parse(hook))])
        let odd = #"{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":5,"permission_suggestions":"x"}}"#
        #expect(
            Self.decode(odd) == [.permissionRequest(AgentPermissionRequest(requestID: "r", toolName: "", input: [:], toolUseID: nil, suggestions: []))]
        )
    }

    @Test("control responses")
    func controlResponse() {
        #expect(
            Self.decode(#"{"type":"control_response","response":{"subtype":"success","request_id":"c-42"}}"#) == [
                .controlResponse(requestID: "c-42", success: true, error: nil)
            ]
        )
        #expect(
            Self.decode(#"{"type":"control_response","response":{"subtype":"error","request_id":"c-43","error":"no turn"}}"#) == [
                .controlResponse(requestID: "c-43", success: false, error: "no turn")
            ]
        )
    }

    @Test("results: success, denials, error subtypes and odd fields")
    func results() {
        let success = #"""
            {"type":"result","subtype":"success","is_error":false,"duration_ms":18342,"duration_api_ms":9120,"num_turns":3,"result":"All 42 tests pass.","stop_reason":"end_turn","session_id":"7c1f…","total_cost_usd":0.0213,"usage":{"input_tokens":92,"output_tokens":47,"cache_creation_input_tokens":0,"cache_read_input_tokens":13368},"modelUsage":{},"permission_denials":[],"uuid":"e7"}
            """#
        #expect(
            Self.decode(success) == [
                .result(
                    AgentTurnResult(
                        subtype: "success", isError: false, sessionID: "7c1f…", durationMs: 18342, totalCostUSD: 0.0213,
                        usage: TokenUsage(inputTokens: 92, outputTokens: 47, cacheReadInputTokens: 13368), numTurns: 3, resultText: "All 42 tests pass.",
                        stopReason: "end_turn"
                    )
                )
            ]
        )
        let denied = #"""
            {"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"I was not allowed to write the file.","session_id":"7c1f…","total_cost_usd":0.01,"usage":{},"permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_09","tool_input":{"file_path":"/home/u/app/NOTES.md","content":"…"}}],"uuid":"e8"}
            """#
        #expect(
            Self.decode(denied) == [
                .result(
                    AgentTurnResult(
                        subtype: "success", isError: false, sessionID: "7c1f…", totalCostUSD: 0.01, numTurns: 2, resultText: "I was not allowed to write the file.",
                        deniedTools: ["Write"]
                    )
                )
            ]
        )
        let maxTurns = #"""
            {"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":2,"session_id":"7c1f…","total_cost_usd":0.0005,"usage":{},"modelUsage":{},"permission_denials":[],"errors":[],"uuid":"e9"}
            """#
        #expect(
            Self.decode(maxTurns) == [.result(AgentTurnResult(subtype: "error_max_turns", isError: false, sessionID: "7c1f…", totalCostUSD: 0.0005, numTurns: 2))]
        )
        let odd = #"""
            {"type":"result","subtype":"error_during_execution","duration_ms":"12","total_cost_usd":"x","usage":[1],"num_turns":null,"errors":["Request interrupted by user",{"code":1},7],"permission_denials":[{"tool_name":"Bash"},"x",{}],"stop_reason":null}
            """#
        #expect(
            Self.decode(odd) == [
                .result(
                    AgentTurnResult(
                        subtype: "error_during_execution", isError: true, durationMs: 12,
                        errors: ["Request interrupted by user", #"{"code":1}"#, "7"], deniedTools: ["Bash"]
                    )
                )
            ]
        )
        #expect(Self.decode(#"{"type":"result"}"#) == [.result(AgentTurnResult(subtype: "", isError: false))])
    }

    @Test("blank lines, non-JSON lines, unknown types and malformed shapes never trap")
    func malformed() {
        #expect(Self.decode("").isEmpty)
        #expect(Self.decode("  \r").isEmpty)
        #expect(Self.decode("this is not JSON {") == [.notJSON("this is not JSON {")])
        #expect(Self.decode("[1,2]") == [.notJSON("[1,2]")])
        #expect(Self.decode("\"text\"") == [.notJSON("\"text\"")])
        #expect(Self.decode(#"{"type":"user""#) == [.notJSON(#"{"type":"user""#)])
        let long = String(repeating: "x", count: 1000)
        #expect(Self.decode(long) == [.notJSON(String(repeating: "x", count: ClaudeStreamDecoder.notJSONPrefixBytes))])
        let mystery = #"{"type":"mystery_type","x":1}"#
        #expect(Self.decode(mystery) == [.other(type: "mystery_type", raw: Self.parse(mystery))])
        #expect(Self.decode(#"{"x":1}"#) == [.other(type: "", raw: ["x": 1])])
        #expect(Self.decode(#"{"type":5}"#) == [.other(type: "", raw: ["type": 5])])
        #expect(Self.decode(#"{"type":"system"}"#) == [.system(AgentSystem(subtype: ""))])
        for shape in [
            #"{"type":"assistant"}"#, #"{"type":"assistant","message":5}"#, #"{"type":"assistant","message":{"content":[1,null,{"type":"text"}]}}"#,
            #"{"type":"user","message":{"content":[{"type":"tool_result"}]}}"#, #"{"type":"control_response","response":"x"}"#,
            #"{"type":"stream_event","event":[]}"#, #"{"type":"control_request","request_id":"r","request":{"subtype":"interrupt"}}"#,
        ] {
            let outputs = Self.decode(shape)
            #expect(!outputs.isEmpty && outputs.allSatisfy { if case .other = $0 { true } else { false } }, "\(shape)")
        }
        // A tool_use without an id cannot be answered or matched with its result.
        let noID = #"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{}}]}}"#
        #expect(Self.decode(noID) == [.other(type: "assistant", raw: Self.parse(noID))])
        // Invalid UTF-8 is repaired, not fatal.
        #expect(ClaudeStreamDecoder.decode(line: [0x7B, 0x22, 0x74, 0xFF]) == [.notJSON("{\"t\u{FFFD}")])
    }
}

@Suite("Splitting an agent's stdout into lines")
struct ClaudeLineSplitterTests {
    @Test("lines split on \\n, partial lines held until completed or finished, \\r\\n tolerated")
    func splitting() {
        var splitter = ClaudeLineSplitter()
        #expect(splitter.feed(Array("one\ntw".utf8)).map { String(decoding: $0, as: UTF8.self) } == ["one"])
        #expect(splitter.pendingByteCount == 2)
        #expect(splitter.feed(Array("o\r\n\nthree\r".utf8)).map { String(decoding: $0, as: UTF8.self) } == ["two", ""])
        #expect(splitter.finish().map { String(decoding: $0, as: UTF8.self) } == ["three"])
        #expect(splitter.finish().isEmpty)
    }

    @Test("a line over the cap is dropped and reported with a marker that is not JSON")
    func oversized() {
        var splitter = ClaudeLineSplitter(maxLineBytes: 10)
        var lines = splitter.feed(Array("0123456789abc".utf8))
        #expect(lines.isEmpty)
        lines = splitter.feed(Array("def\n{}\n".utf8))
        #expect(lines == [ClaudeLineSplitter.oversizedMarker(byteCount: 16), Array("{}".utf8)])
        #expect(ClaudeStreamDecoder.decode(line: lines[0]) == [.notJSON("[oversized line of 16 bytes dropped]")])
    }
}
