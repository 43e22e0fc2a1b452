// fake-llm: a test double of an OpenAI-compatible chat completions server. No real LLM can run here (no internet, no
// weights), so the auto-reply judge is tested against this process, which speaks the real protocol:
//
//   POST /v1/chat/completions   {"model": …, "messages": [{"role", "content"}, …], …}
//   → 200 {"id", "object": "chat.completion", "created", "model",
//          "choices": [{"index": 0, "message": {"role": "assistant", "content": "…"}, "finish_reason": "stop"}],
//          "usage": {"prompt_tokens", "completion_tokens", "total_tokens"}}
//   (also served at POST /chat/completions, for a base URL without /v1)
//
//   fake-llm [--port <n>] [--host <h>] [--require-key <key>]
//
// - `--port 0` (the default) binds a free port; the first stdout line is `listening on http://127.0.0.1:<port>`.
// - `--require-key <key>`: requests without `Authorization: Bearer <key>` get 401 with an OpenAI-style error body.
// - The LAST user message scripts the answer: `JUDGE:complete` → {"confidence":0.97,"complete":true,…};
//   `JUDGE:continue` → {"confidence":0.2,"complete":false,"next_prompt":"Now write the tests.",…};
//   `JUDGE:slow` → waits 30 s first; `JUDGE:garbage` → "I think it is done" (not JSON); `JUDGE:fenced` → the
//   complete verdict in ```json fences with prose around; `JUDGE:500` → HTTP 500. Otherwise confidence 0.5.
// - `$FAKE_LLM_LOG`: every request body received is appended to this file, one JSON per line.
import Foundation
import Hummingbird
import ModelAPIDouble
import RalphAPI

@main
struct FakeLLM {
    static func main() async throws {
        let options = DoubleOptions.parse(Array(CommandLine.arguments.dropFirst()), program: "fake-llm", valueOptions: ["--require-key"])
        let requiredKey = options.values["--require-key"]
        let log = JSONLinesLog(path: ProcessInfo.processInfo.environment["FAKE_LLM_LOG"])
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body = Array(try await request.body.collect(upTo: 16 * 1024 * 1024).readableBytesView)
            // One line per request even if the body was pretty-printed (a body that is not JSON: as a string).
            log.append((try? JSONParser.parse(body)) ?? .string(String(decoding: body, as: UTF8.self)))
            if let key = requiredKey, request.headers[.authorization] != "Bearer \(key)" {
                let given = request.headers[.authorization] == nil ? "You didn't provide an API key." : "Incorrect API key provided."
                return error(.unauthorized, message: given, type: "invalid_request_error", code: "invalid_api_key")
            }
            return await complete(body)
        }
        router.post("/v1/chat/completions", use: handler)
        router.post("/chat/completions", use: handler)

        let app = Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "fake-llm"),
            onServerRunning: { channel in options.announce(port: channel.localAddress?.port) }
        )
        try await app.runService()
    }

    /// Answers one chat completions request.
    static func complete(_ body: [UInt8]) async -> Response {
        guard let request = (try? JSONParser.parse(body))?.objectValue else {
            return error(.badRequest, message: "We could not parse the JSON body of your request.", type: "invalid_request_error", code: nil)
        }
        guard let model = request["model"]?.stringValue, !model.isEmpty else {
            return error(.badRequest, message: "you must provide a model parameter", type: "invalid_request_error", code: nil)
        }
        guard case .array(let messages)? = request["messages"], !messages.isEmpty else {
            return error(.badRequest, message: "'messages' is a required property", type: "invalid_request_error", code: nil)
        }
        let lastUser = messages.last { $0.objectValue?["role"]?.stringValue == "user" }.flatMap { text(of: $0) } ?? ""

        let complete = #"{"confidence":0.97,"complete":true,"reason":"The agent reports the task done and the tests pass."}"#
        let content: String
        if lastUser.contains("JUDGE:500") {
            return error(.internalServerError, message: "The server had an error while processing your request.", type: "server_error", code: nil)
        } else if lastUser.contains("JUDGE:slow") {
            try? await Task.sleep(for: .seconds(30))
            content = complete
        } else if lastUser.contains("JUDGE:complete") {
            content = complete
        } else if lastUser.contains("JUDGE:continue") {
            content = #"{"confidence":0.2,"complete":false,"next_prompt":"Now write the tests.","reason":"The code is written but untested."}"#
        } else if lastUser.contains("JUDGE:garbage") {
            content = "I think it is done"
        } else if lastUser.contains("JUDGE:fenced") {
            content = "Here is my judgement:\n\n```json\n\(complete)\n```\n\nLet me know if you need anything else."
        } else {
            content = #"{"confidence":0.5,"complete":false,"next_prompt":"Continue.","reason":"It is unclear whether the task is done."}"#
        }
        let promptTokens = body.count / 4
        let completionTokens = content.utf8.count / 4
        let answer: JSONValue = [
            "id": .string("chatcmpl-\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"),
            "object": "chat.completion",
            "created": .int(Int(Date().timeIntervalSince1970)),
            "model": .string(model),
            "choices": [
                [
                    "index": 0,
                    "message": ["role": "assistant", "content": .string(content)],
                    "logprobs": nil,
                    "finish_reason": "stop",
                ]
            ],
            "usage": [
                "prompt_tokens": .int(promptTokens), "completion_tokens": .int(completionTokens),
                "total_tokens": .int(promptTokens + completionTokens),
            ],
            "system_fingerprint": "fp_fake_llm",
        ]
        return json(.ok, answer)
    }

    /// A message's text: a string, or the text parts of a content array.
    static func text(of message: JSONValue) -> String? {
        switch message.objectValue?["content"] {
        case .string(let s)?: return s
        case .array(let parts)?: return parts.compactMap { $0.objectValue?["text"]?.stringValue }.joined(separator: "\n")
        default: return nil
        }
    }

    static func error(_ status: HTTPResponse.Status, message: String, type: String, code: String?) -> Response {
        json(status, ["error": ["message": .string(message), "type": .string(type), "param": nil, "code": code.map(JSONValue.string) ?? nil]])
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(value))))
    }
}
