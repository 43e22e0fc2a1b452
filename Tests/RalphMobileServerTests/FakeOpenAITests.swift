import NIOHTTP1
import RalphAPI
import Testing

/// `fake-openai`, the double of the OpenAI Responses API, driven over HTTP with requests shaped like Codex's: the
/// streamed events, how a request picks its script step, the tool calls each command becomes, and its errors.
@Suite("fake-openai, the Responses API double", .serialized, .timeLimit(.minutes(1)))
struct FakeOpenAITests {
    typealias Client = ResponsesClient

    @Test("a plain prompt is echoed as a message streamed word by word, in the real event order with usage")
    func echo() async throws {
        try await Client.with { api in
            let events = try await api.stream(input: Client.input("hello there"))
            let names = events.map(\.name)
            #expect(
                names.prefix(4) == [
                    "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
                ])
            #expect(
                names.suffix(4) == [
                    "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed",
                ])
            let deltas = events.filter { $0.name == "response.output_text.delta" }.compactMap { $0.data["delta"]?.stringValue }
            #expect(deltas == ["Echo: ", "hello ", "there"])
            #expect(events.map { $0.data["sequence_number"]?.intValue } == Array(0..<events.count))
            let response = try #require(events.last?.data["response"]?.objectValue)
            #expect(response["status"] == "completed")
            let usage = try #require(response["usage"]?.objectValue)
            #expect(usage["input_tokens"] == 100 && usage["output_tokens"] == 20 && usage["total_tokens"] == 120)
            #expect(usage["input_tokens_details"]?.objectValue?["cached_tokens"] == 0)
            #expect(usage["output_tokens_details"]?.objectValue?["reasoning_tokens"] == 0)
            let item = try #require(response["output"]?.arrayValue?.first?.objectValue)
            #expect(item["type"] == "message" && item["role"] == "assistant")
            #expect(item["content"]?.arrayValue?.first?.objectValue?["text"] == "Echo: hello there")
        }
    }

    @Test("without stream the answer is one response object")
    func whole() async throws {
        try await Client.with { api in
            let result = try await api.post(["model": "gpt-5.5", "input": .array(Client.input(model(["say Hi {turn}", "usage 7 3 2 1"])))])
            #expect(result.status == 200)
            #expect(result.headers.first(name: "content-type") == "application/json")
            let response = try #require(try JSONParser.parse(result.text).objectValue)
            #expect(response["object"] == "response" && response["status"] == "completed" && response["model"] == "gpt-5.5")
            #expect(response["output"]?.arrayValue?.first?.objectValue?["content"]?.arrayValue?.first?.objectValue?["text"] == "Hi 1")
            let usage = response["usage"]?.objectValue
            #expect(usage?["input_tokens"] == 7 && usage?["output_tokens"] == 3 && usage?["total_tokens"] == 10)
            #expect(usage?["input_tokens_details"]?.objectValue?["cached_tokens"] == 2)
            #expect(usage?["output_tokens_details"]?.objectValue?["reasoning_tokens"] == 1)
        }
    }

    @Test("the step counts model responses after the prompt: reasoning, a message and a call in a row are one")
    func steps() async throws {
        try await Client.with { api in
            let script = model(["think First.", "say Looking.", "bash ls"], ["write a.txt :: x"], ["say third"])
            var input = Client.input(script)
            input += [
                ["type": "reasoning", "id": "rs_1", "summary": []],
                ["type": "message", "role": "assistant", "content": [["type": "output_text", "text": "Looking."]]],
                ["type": "function_call", "name": "shell_command", "arguments": "{}", "call_id": "c1"],
                ["type": "function_call_output", "call_id": "c1", "output": "Exit code: 0"],
                ["type": "custom_tool_call", "name": "apply_patch", "input": "…", "call_id": "c2"],
                ["type": "custom_tool_call_output", "call_id": "c2", "output": "Success."],
                Client.user("<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"),
            ]
            let events = try await api.stream(input: input)
            #expect(events.compactMap { $0.data["delta"]?.stringValue } == ["third"])
            let logged = try #require(api.requests().last)
            #expect(logged["step"] == 2 && logged["attempt"] == 1 && logged["script"] == .string(script))
            #expect(logged["last"]?.arrayValue?.first?.objectValue?["output"] == "Success.", "the log shows what the model is answering")
            #expect(logged["tools"] == ["shell_command", "apply_patch", "web_search"])
            // A later prompt starts again at step 0, and {turn} counts the prompts.
            let next = try await api.stream(input: input + [Client.user(model(["say turn {turn}"]))])
            #expect(next.compactMap { $0.data["delta"]?.stringValue } == ["turn ", "2"])
        }
    }

    @Test("bash calls the shell tool the request offers: shell_command, else exec_command, else a 400")
    func bash() async throws {
        try await Client.with { api in
            let shell = try await api.output(model(["bash echo hi > out.txt"]))
            #expect(shell["type"] == "function_call" && shell["name"] == "shell_command")
            #expect(shell["arguments"] == #"{"command":"echo hi > out.txt"}"#)
            #expect(shell["call_id"]?.stringValue?.hasPrefix("call_") == true)
            let exec = try await api.output(model(["bash ls"]), tools: [["type": "function", "name": "exec_command"]])
            #expect(exec["name"] == "exec_command" && exec["arguments"] == #"{"cmd":"ls"}"#)
            let tool = try await api.output(model([#"tool update_plan {"plan": []}"#]))
            #expect(tool["name"] == "update_plan" && tool["arguments"] == #"{"plan":[]}"#)
            let none = try await api.post(
                Client.body(model(["bash ls"]), tools: [["type": "function", "name": "view_image"], ["type": "web_search"]]))
            #expect(none.status == 400)
            let error = try #require(try JSONParser.parse(none.text).objectValue?["error"]?.objectValue)
            #expect(error["type"] == "invalid_request_error")
            #expect(error["message"]?.stringValue?.contains("the request offers: view_image, web_search") == true, "\(error)")
        }
    }

    @Test("write and edit become apply_patch custom tool calls, their patch streamed in pieces")
    func patches() async throws {
        try await Client.with { api in
            let write = try await api.output(model([#"write notes/a.txt :: one\ntwo"#]))
            #expect(write["type"] == "custom_tool_call" && write["name"] == "apply_patch")
            #expect(write["input"] == "*** Begin Patch\n*** Add File: notes/a.txt\n+one\n+two\n*** End Patch\n")
            let edit = try await api.output(model([#"edit /abs/b.txt :: old line :: new\nlines"#]))
            #expect(edit["input"] == "*** Begin Patch\n*** Update File: /abs/b.txt\n@@\n-old line\n+new\n+lines\n*** End Patch\n")
            let events = try await api.stream(input: Client.input(model(["write c.txt :: hello world"])))
            let pieces = events.filter { $0.name == "response.custom_tool_call_input.delta" }.compactMap { $0.data["delta"]?.stringValue }
            #expect(pieces.count >= 2)
            #expect(pieces.joined() == "*** Begin Patch\n*** Add File: c.txt\n+hello world\n*** End Patch\n")
            let done = events.first { $0.name == "response.custom_tool_call_input.done" }
            #expect(done?.data["input"] == .string(pieces.joined()))
            let refused = try await api.post(
                Client.body(model(["edit a :: b :: c"]), tools: [["type": "function", "name": "shell_command"]]))
            #expect(refused.status == 400 && refused.text.contains("apply_patch"))
        }
    }

    @Test("think is a reasoning item whose summary streams, with encrypted content when the request includes it")
    func think() async throws {
        try await Client.with { api in
            let events = try await api.stream(Client.body(model(["think Planning the work", "say ok"]), stream: true, include: true))
            let names = events.map(\.name)
            #expect(names.contains("response.reasoning_summary_part.added") && names.contains("response.reasoning_summary_part.done"))
            let deltas = events.filter { $0.name == "response.reasoning_summary_text.delta" }.compactMap { $0.data["delta"]?.stringValue }
            #expect(deltas.joined() == "Planning the work" && deltas.count == 3)
            let item = try #require(events.first { $0.name == "response.output_item.done" }?.data["item"]?.objectValue)
            #expect(item["type"] == "reasoning")
            #expect(item["summary"] == [["type": "summary_text", "text": "Planning the work"]])
            #expect(item["encrypted_content"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("stop max_output_tokens ends the stream with response.incomplete")
    func incomplete() async throws {
        try await Client.with { api in
            let events = try await api.stream(input: Client.input(model(["say cut short", "stop max_output_tokens"])))
            #expect(events.last?.name == "response.incomplete")
            let response = events.last?.data["response"]?.objectValue
            #expect(response?["status"] == "incomplete")
            #expect(response?["incomplete_details"] == ["reason": "max_output_tokens"])
        }
    }

    @Test("errors have the real shape and status: a script mistake, scripted errors, fail n times, bad requests")
    func errors() async throws {
        try await Client.with { api in
            let typo = try await api.post(Client.body("#model\nsay fine\nsya oops"))
            #expect(typo.status == 400 && typo.headers.first(name: "x-request-id")?.hasPrefix("req_") == true)
            let typoError = try #require(try JSONParser.parse(typo.text).objectValue?["error"]?.objectValue)
            #expect(typoError.keys == ["message", "type", "param", "code"])
            #expect(typoError["message"]?.stringValue?.contains("script line 3 \"sya oops\": unknown command") == true)

            let limited = try await api.post(Client.body(model(["error 429"])))
            #expect(limited.status == 429 && limited.headers.first(name: "retry-after") == "1")
            let limit = try #require(try JSONParser.parse(limited.text).objectValue?["error"]?.objectValue)
            #expect(limit["code"] == "rate_limit_exceeded" && limit["type"] == "requests")
            let server = try await api.post(Client.body(model(["error 500 upstream broke"])))
            #expect(server.status == 500 && server.text.contains(#""message":"upstream broke","type":"server_error""#))
            let key = try await api.post(Client.body(model(["error 401"])))
            #expect(key.status == 401 && key.text.contains(#""code":"invalid_api_key""#))

            let flaky = Client.body(model(["fail 500 2", "say third time lucky"]))
            #expect(try await api.post(flaky).status == 500)
            #expect(try await api.post(flaky).status == 500)
            #expect(try await api.post(flaky).text.contains("third time lucky"))
            #expect(api.requests().suffix(3).map { $0["attempt"] } == [1, 2, 3])

            let noModel = try await api.post(["input": "hi"])
            #expect(noModel.status == 400 && noModel.text.contains(#""param":"model""#))
            let notJSON = try await HTTP.request(api.base + "/v1/responses", method: .POST, body: "{nope")
            #expect(notJSON.status == 400 && notJSON.text.contains("invalid_request_error"))
            let unknown = try await HTTP.request(api.base + "/v1/chat/completions", method: .POST, body: "{}")
            #expect(unknown.status == 404 && unknown.text.contains("Invalid URL (POST /v1/chat/completions)"))
        }
    }

    @Test("GET /v1/models lists models in the real shape")
    func models() async throws {
        try await Client.with { api in
            let result = try await HTTP.get(api.base + "/v1/models")
            let list = try #require(try JSONParser.parse(result.text).objectValue)
            #expect(list["object"] == "list")
            let first = list["data"]?.arrayValue?.first?.objectValue
            #expect(first?["id"] == "gpt-5.5" && first?["object"] == "model" && first?["owned_by"] == "openai")
        }
    }

    @Test("hang sends the opening events and the first delta, then nothing; cut drops the connection there")
    func hangAndCut() async throws {
        try await Client.with { api in
            let hung = try await api.opening(Client.body(model(["say never finished", "hang"]), stream: true))
            #expect(hung.contains("event: response.created") && hung.contains(#""delta":"never ""#))
            #expect(!hung.contains("response.output_text.done"))
            await #expect(throws: (any Error).self, "the connection closes before the response ends") {
                try await api.post(Client.body(model(["say broken", "cut"]), stream: true))
            }
            #expect(api.requests().map { $0["status"] } == [200, 200], "both are answered 200 before they break")
        }
    }
}
