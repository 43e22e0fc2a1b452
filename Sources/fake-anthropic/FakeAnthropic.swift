// fake-anthropic: a test double of the Anthropic Messages API. The real Claude Code CLI runs here but cannot reach
// Anthropic, so tests point it at this process (`ANTHROPIC_BASE_URL=http://127.0.0.1:<port>`, any API key) and script
// the model's replies in the prompt itself.
//
//   fake-anthropic [--port <n>] [--host <h>]
//
// - `--port 0` (the default) binds a free port; the first stdout line is `listening on http://<host>:<port>`.
// - `POST /v1/messages` (any query, e.g. `?beta=true`) → the scripted reply: server-sent events when the body has
//   `"stream": true` (message_start, ping, content_block_start/delta/stop…, message_delta, message_stop), else one
//   message object {"id","type":"message","role":"assistant","model","content","stop_reason","stop_sequence","usage"}.
// - `POST /v1/messages/count_tokens` → {"input_tokens": <body bytes / 4>}.
// - Errors have the real shape {"type":"error","error":{"type","message"}}: unknown path 404 not_found_error; no
//   `x-api-key` and no `authorization` 401 authentication_error; a body that is not a JSON object or lacks `model` or
//   `messages` 400 invalid_request_error. Every answer has a `request-id` header.
// - `$FAKE_ANTHROPIC_LOG`: one JSON line per request appended: {"path","model","stream","script","step","attempt",
//   "status","retry_count","last"} (see LogEntry; `last` summarises the last non-system message's blocks).
//
// Choosing the reply, from the request alone (so it holds across CLI restarts, --resume and sub-agents):
// - The prompt is the last text, not starting with `<system-reminder>`, of the last user message that has one
//   (tool_result blocks and `system` messages are ignored). The step is the number of assistant messages after it.
// - A prompt whose first line is `#model` is a script in the language both model doubles share (its commands are
//   described in Sources/ModelAPIDouble/Script/Script.swift); any other prompt is answered
//   `Echo: <prompt on one line, 300 characters>`. A bad script answers 400 invalid_request_error naming the line.
// - How each command becomes the Messages API's shapes:
//     say <text>                   a text block, streamed word by word (text_deltas)
//     think <text>                 a thinking block: thinking_deltas, then a signature_delta
//     tool <Name> <json object>    a tool_use block (id toolu_…), its input in at least two input_json_deltas
//     bash <command>               tool Bash {"command": <command>, "description": "Run <command>"}
//     write <path> :: <content>    tool Write {"file_path": <path>, "content": <content>}: the CLI writes the
//                                  content as it is (no newline added); a relative path is taken from its cwd
//     edit <path> :: <old> :: <new>
//                                  tool Edit {"file_path", "old_string", "new_string"}: the CLI replaces <old> as a
//                                  substring (an error result when it is not in the file)
//     agent <description> :: <prompt>
//                                  tool Agent {"description", "prompt", "subagent_type": "general-purpose"};
//                                  `\n` in the prompt is a newline, so `agent check :: #model\nsay sub says 42`
//                                  gives the sub-agent its own script
//     usage <in> <out> [<cached>]  usage input_tokens, output_tokens, cache_read_input_tokens (default 100, 20, 0)
//     stop <reason>                stop_reason (default end_turn, or tool_use when a tool block is present)
//     delay <ms>, wait <ms>        pause before each SSE event; before answering at all
//     error <status> [message]     answer every request of this step with that HTTP error (429 adds retry-after: 1)
//     fail <status> <n>            the first n requests of this step (per prompt and step, in memory) fail so
//     hang                         send message_start and one delta, then nothing until the client goes away
//     cut                          send message_start and one delta, then drop the connection
//   Without "stream": true, `hang` and `cut` send the headers and half of the JSON body.
//
// What the real CLI (2.1.330) does with these, which a test has to allow for:
// - It retries 429, 5xx, 529 and a `cut` itself (a `system/api_retry` stdout line each, backing off 0.5 s, 1 s,
//   2 s…, about 1 s after a 429's retry-after; CLAUDE_CODE_MAX_RETRIES caps the count, then the result has
//   is_error true); its x-stainless-retry-count header stays 0 on those retries.
// - On a 400 it resends the same request up to five more times with fewer betas before giving up, without
//   api_retry lines, so `fail 400 <n>` counts those resends; `error 400` ends the turn with is_error true.
import Foundation
import Hummingbird
import ModelAPIDouble

/// The process: serves the API until SIGTERM or SIGINT.
@main
struct FakeAnthropic {
    /// Parses the options, binds, prints the `listening on` line, serves.
    static func main() async throws {
        let options = DoubleOptions.parse(Array(CommandLine.arguments.dropFirst()), program: "fake-anthropic")
        let server = Server(log: JSONLinesLog(path: ProcessInfo.processInfo.environment["FAKE_ANTHROPIC_LOG"]), attempts: Attempts())
        let app = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in await server.respond(request) },
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "fake-anthropic"),
            onServerRunning: { channel in options.announce(port: channel.localAddress?.port) }
        )
        try await app.runService()
    }
}
