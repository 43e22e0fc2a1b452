import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RalphAPI

/// One server-sent event of a Responses API stream: its `event:` name and its `data:` object.
struct ResponsesEvent: Sendable {
    var name: String
    var data: JSONObject
}

/// A client of a running fake-openai, for its tests: requests shaped like Codex's, the answers parsed.
struct ResponsesClient: Sendable {
    let api: FakeOpenAI

    var base: String { api.base }

    /// Runs `body` against a fresh fake-openai, stopped afterwards.
    static func with(_ body: (ResponsesClient) async throws -> Void) async throws {
        let tmp = TemporaryDirectory("rm-openai")
        let api = try await FakeOpenAI.start(log: tmp.path + "/openai.log")
        do {
            try await body(ResponsesClient(api: api))
        } catch {
            await api.stop()
            throw error
        }
        await api.stop()
    }

    /// The tools Codex offers with `unified_exec = false`, cut down to the kinds that matter here.
    static let codexTools: JSONValue = [
        ["type": "function", "name": "shell_command"], ["type": "custom", "name": "apply_patch"], ["type": "web_search"],
    ]

    /// A user message as Codex sends one.
    static func user(_ text: String) -> JSONValue {
        ["type": "message", "role": "user", "content": [["type": "input_text", "text": .string(text)]]]
    }

    /// The input of a thread's first request as Codex sends it: developer instructions, the environment context (a
    /// user message), then the prompt.
    static func input(_ prompt: String) -> [JSONValue] {
        [
            ["type": "message", "role": "developer", "content": [["type": "input_text", "text": "<permissions instructions>…"]]],
            user("<environment_context>\n  <cwd>/work</cwd>\n</environment_context>"), user(prompt),
        ]
    }

    /// A request body: `input` (or a first request for `prompt`), `tools`, streamed or not.
    static func body(
        _ prompt: String? = nil, input: [JSONValue]? = nil, tools: JSONValue = codexTools, stream: Bool = false, include: Bool = false
    ) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("model", "gpt-5.5"), ("input", .array(input ?? Self.input(prompt ?? ""))), ("tools", tools), ("stream", .bool(stream)),
        ]
        if include { members.append(("include", ["reasoning.encrypted_content"])) }
        return .object(JSONObject(members))
    }

    /// The requests it answered, in order.
    func requests() -> [JSONObject] { api.requests() }

    /// `POST /v1/responses` with `body`.
    func post(_ body: JSONValue) async throws -> HTTPResult {
        try await HTTP.request(base + "/v1/responses", method: .POST, body: JSONWriter.string(body))
    }

    /// The events of a streamed answer to `body` (which must ask for a stream).
    func stream(_ body: JSONValue) async throws -> [ResponsesEvent] {
        let result = try await post(body)
        guard result.status == 200 else { throw TestFailure("status \(result.status): \(result.text)") }
        return Self.events(result.text)
    }

    /// The events of a streamed answer to a request with `input` and Codex's tools.
    func stream(input: [JSONValue]) async throws -> [ResponsesEvent] {
        try await stream(Self.body(input: input, stream: true))
    }

    /// The first output item of the non-streamed answer to a first request for `prompt`.
    func output(_ prompt: String, tools: JSONValue = codexTools) async throws -> JSONObject {
        let result = try await post(Self.body(prompt, tools: tools))
        guard let item = (try JSONParser.parse(result.text)).objectValue?["output"]?.arrayValue?.first?.objectValue else {
            throw TestFailure("no output item: \(result.status) \(result.text)")
        }
        return item
    }

    /// What a streamed answer to `body` sends up to its first delta, read as it arrives; the request is then abandoned.
    func opening(_ body: JSONValue) async throws -> String {
        var request = HTTPClientRequest(url: base + "/v1/responses")
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: JSONWriter.string(body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        var text = ""
        for try await chunk in response.body {
            text += String(buffer: chunk)
            if text.contains(".delta\ndata: ") && text.hasSuffix("\n\n") { break }
        }
        return text
    }

    /// `event: <name>` / `data: <json>` blocks parsed.
    static func events(_ text: String) -> [ResponsesEvent] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var name: String?
            var data: JSONObject?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = (try? JSONParser.parse(String(line.dropFirst(6))))?.objectValue }
            }
            guard let name, let data else { return nil }
            return ResponsesEvent(name: name, data: data)
        }
    }
}
