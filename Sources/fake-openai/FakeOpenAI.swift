// fake-openai: a test double of the OpenAI Responses API. The real Codex CLI runs here but cannot reach OpenAI, so
// tests point it at this process (a custom model provider in `$CODEX_HOME/config.toml` with `wire_api = "responses"`
// and `base_url = "http://127.0.0.1:<port>/v1"`; no key is needed) and script the model's replies in the prompt.
//
//   fake-openai [--port <n>] [--host <h>]
//
// - `--port 0` (the default) binds a free port; the first stdout line is `listening on http://<host>:<port>`.
// - `POST /v1/responses` → the scripted reply. With `"stream": true`, server-sent events (`event: <type>` and
//   `data: <json>` lines, each payload with its `sequence_number`) as the real API streams them:
//   response.created, response.in_progress; per output item response.output_item.added, then
//     message:          response.content_part.added, response.output_text.delta (word by word),
//                       response.output_text.done, response.content_part.done
//     reasoning:        response.reasoning_summary_part.added, response.reasoning_summary_text.delta (word by word),
//                       response.reasoning_summary_text.done, response.reasoning_summary_part.done
//     function_call:    response.function_call_arguments.delta (in pieces), response.function_call_arguments.done
//     custom_tool_call: response.custom_tool_call_input.delta (in pieces), response.custom_tool_call_input.done
//   and response.output_item.done; last response.completed (or response.incomplete) with the whole response and
//   `usage {input_tokens, input_tokens_details{cached_tokens}, output_tokens, output_tokens_details{reasoning_tokens},
//   total_tokens}`. Without it, one response object {"id":"resp_…","object":"response","status","output","usage",…}.
// - `GET /v1/models` → {"object":"list","data":[{"id":"gpt-5.5","object":"model",…}…]}.
// - Errors have the real shape {"error":{"message","type","param","code"}} and an `x-request-id` header like every
//   answer: unknown path 404 `Invalid URL (POST /v1/…)`; a body that is not a JSON object, or lacks `model` or
//   `input`, 400 invalid_request_error. No API key is asked for (Codex sends none to a custom provider).
// - `$FAKE_OPENAI_LOG`: one JSON line per request appended: {"method","path","model","stream","script","step",
//   "attempt","status","tools","last"} (see LogEntry; `tools` names the tools offered, `last` summarises the input
//   items after the last model output: tool outputs with their text, or the user's messages).
//
// Choosing the reply, from the request alone (so it holds across Codex restarts and resumed threads):
// - The prompt is the last `input_text` not starting with `<` of the last user message that has one (Codex adds
//   `<environment_context>`, `<turn_aborted>`… user messages; developer messages are ignored). The step is the number
//   of model responses after it: maximal runs of consecutive model-output items (assistant message, function_call,
//   custom_tool_call, reasoning), since one response can hold a message and a call. `{turn}` is the number of
//   prompts so far.
// - A prompt whose first line is `#model` is a script in the language both model doubles share (its commands are
//   described in Sources/ModelAPIDouble/Script/Script.swift); any other prompt is answered
//   `Echo: <prompt on one line, 300 characters>`. A bad script answers 400 invalid_request_error naming the line.
// - How each command becomes the Responses API's shapes:
//     say <text>                   an assistant message item, its text streamed word by word
//     think <text>                 a reasoning item whose summary is the text (with an encrypted_content when the
//                                  request's `include` asks for reasoning.encrypted_content)
//     tool <Name> <json object>    a function_call of <Name> with that JSON as its arguments
//     bash <command>               a function_call of the shell tool the request offers: shell_command
//                                  {"command": <command>} when `tools` has shell_command, else exec_command
//                                  {"cmd": <command>}; neither offered: 400 naming the tools offered
//     write <path> :: <content>    a custom_tool_call of apply_patch adding the file (`*** Add File: <path>`, each
//                                  line `+…`); Codex ends the file with a newline
//     edit <path> :: <old> :: <new>
//                                  a custom_tool_call of apply_patch updating the file (`*** Update File: <path>`,
//                                  `@@`, the old lines `-…`, the new lines `+…`): Codex replaces whole lines.
//                                  write and edit answer 400 when the request offers no apply_patch
//     agent …                      400: the double has no sub-agent
//     usage <in> <out> [<cached> [<reasoning>]]
//                                  usage counts (default 100, 20, 0, 0); total_tokens is in + out
//     stop <reason>                `max_tokens`/`max_output_tokens` or `content_filter`: the response ends
//                                  response.incomplete with incomplete_details.reason (max_output_tokens or
//                                  content_filter); any other reason: completed as usual
//     delay <ms>, wait <ms>        pause before each SSE event; before answering at all
//     error <status> [message]     answer every request of this step with that HTTP error: 400-428
//                                  invalid_request_error (401 code invalid_api_key), 429 type requests code
//                                  rate_limit_exceeded with retry-after: 1, 5xx server_error
//     fail <status> <n>            the first n requests of this step (per prompt and step, in memory) fail so
//     hang                         send the opening events and the first delta, then nothing until the client goes
//     cut                          away (hang), or drop the connection (cut)
//   Without "stream": true, `hang` and `cut` send the headers and half of the JSON body.
//
// What Codex 0.147.0 does with these (see /work/notes/codex-facts.md): it does not retry a 400 or a 429; it retries
// 5xx and a broken stream `request_max_retries`/`stream_max_retries` times (tests set both to 0); a
// response.incomplete fails the turn ("Incomplete response returned, reason: max_output_tokens").
import Foundation
import Hummingbird
import ModelAPIDouble

/// The process: serves the API until SIGTERM or SIGINT.
@main
struct FakeOpenAI {
    /// Parses the options, binds, prints the `listening on` line, serves.
    static func main() async throws {
        let options = DoubleOptions.parse(Array(CommandLine.arguments.dropFirst()), program: "fake-openai")
        let server = Server(log: JSONLinesLog(path: ProcessInfo.processInfo.environment["FAKE_OPENAI_LOG"]), attempts: Attempts())
        let app = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in await server.respond(request) },
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "fake-openai"),
            onServerRunning: { channel in options.announce(port: channel.localAddress?.port) }
        )
        try await app.runService()
    }
}
