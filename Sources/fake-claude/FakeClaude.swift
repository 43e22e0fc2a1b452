// fake-claude: a test double of the `claude` CLI (Claude Code), for the faults the real CLI cannot be made to show
// (a crash, garbage output, a hang). Everywhere else it agrees with the real CLI (2.1.330, observed), so tests that
// pass against it mean the same against the real one.
//
// It speaks the headless stream-json protocol (docs: shared/reference/chat-and-auto-reply-sources.md §3):
//
//   fake-claude -p --input-format stream-json --output-format stream-json --verbose --include-partial-messages \
//               --permission-prompt-tool stdio [--resume <id>] [--model <m>] [--permission-mode <m>] \
//               [--replay-user-messages]
//
// Flags, as the real CLI (commander.js) takes them:
// - -p/--print is required; stream-json output without --verbose, --replay-user-messages without stream-json in and
//   out, unknown options and bad choices are errors (exit 1). --permission-mode takes acceptEdits, auto,
//   bypassPermissions, manual, dontAsk, plan, and also `default` (not listed); auto, manual and plan act like
//   default here.
//   Also: --allowedTools/--disallowedTools (rules), --dangerously-skip-permissions, a prompt argument (the first user
//   message), the text/json output formats for a single prompt. --version prints "<FakeClaude.version> (Claude Code)",
//   --help the options with their choices; both exit 0.
// - Sessions live in <CLAUDE_CONFIG_DIR or ~/.claude>/projects/<cwd with "/" → "-">/<session_id>.jsonl (one line per
//   user message, assistant line and tool result); session ids are lowercase UUIDs. --resume of an id without a file
//   for this cwd prints one result line (error_during_execution, errors ["No conversation found with session ID:
//   <id>"], zero usage), the message on stderr, and exits 1; a value that is not a UUID does the same with the real
//   CLI's "--resume requires a valid session ID…" message. A resumed process starts its cost and result count at 0.
//
// Turns, as the real CLI runs them:
// - A stdin `user` line may carry "uuid". Then `command_lifecycle` lines report it: `queued` when read, `started`
//   when its turn begins, `completed` after its result (`cancelled` after an interrupted or failed one). Its turn's
//   `init` and `status` lines carry "user_message_uuids", the turn's first `message_start` and `assistant` line and
//   its `result` "user_message_uuid" and "user_message_uuids". Without a uuid: none of this.
// - A message that arrives while nothing runs starts its turn at once. Messages that arrive during a turn wait; the
//   turn takes them into its next model request after a tool result (replayed, `started`, `completed` just before the
//   result; the script does not change), or else they all make the next turn together, their texts joined with
//   newlines.
// - Every turn starts with `system`/`init` (claude_code_version FakeClaude.version, the current model and
//   permissionMode, capabilities with "msg_lifecycle_v1", cwd, tools, additional_directories). With
//   --include-partial-messages, `system`/`status` `requesting` comes before each model request; with
//   --replay-user-messages the turn's user lines are echoed back (isReplay) after it. Each assistant block streams as
//   stream events, its `assistant` line coming before its content_block_stop. A turn ends with one `result`:
//   `total_cost_usd` the running total of this process, `usage` the turn's own, `modelUsage` the process's per
//   model, `model_usage_since_last_result` the turn's per model, `result_index` 0, 1, 2… per process,
//   `terminal_reason` "completed".
// - A `control_request` `interrupt` is answered {"still_queued":[<uuids waiting>]} and stops the running turn: a user
//   line "[Request interrupted by user]", then a result error_during_execution with terminal_reason
//   "aborted_streaming" and an "[ede_diagnostic] …" error. During a permission request, the request is cancelled
//   first (`control_cancel_request`), the tool gets the CLI's rejection text, the line says "… for tool use" and
//   terminal_reason is "aborted_tools". A turn interrupted before any model request ended costs nothing.
// - `set_model` and `set_permission_mode` are answered with the new value (the mode also with a `status` line); the
//   next turn's init shows it. End of stdin: exit 0 once the running turn and any background agent's turn are done.
//
// Permissions (the `tool` command): a tool disallowed as a whole does not exist (not in init's tools; a call gets
// "No such tool available"); deny rules deny ("Permission to use Bash with command <c> has been denied.");
// bypassPermissions, reads inside the working directories (Read, Glob, Grep; Bash ls, cat, git status and a few more
// without redirection, pipes or chaining), an allow rule, or acceptEdits for a file tool (Write, Edit, MultiEdit,
// NotebookEdit) inside them run the tool unasked; dontAsk, or no stdio prompt tool, deny with the CLI's messages;
// otherwise a `can_use_tool` request (request_id a UUID) with display_name, description (the input's; for file and
// read tools the path, relative to the cwd inside it), permission_suggestions as the real CLI makes them (Bash: an
// addRules "<command> *" for localSettings, addDirectories [cwd] and setMode acceptEdits; file tools: setMode
// acceptEdits, plus addDirectories [its directory] outside the cwd; read tools outside it: an addRules "/<dir>/**";
// others: none), blocked_path for Bash (<cwd>/<last word of the command>), and decision_reason for a path outside
// the working directories. An allow's updatedPermissions apply like the CLI's: addRules allow later matching calls
// ("x y *" matches `x y` and `x y …`, "//dir/**" paths under /dir; no ruleContent: the whole tool) and, for
// localSettings, are saved to <cwd>/.claude/settings.local.json (read at startup); setMode switches the mode (a
// `status` line); addDirectories widen the working directories. Tool results carry tool_result_meta saying who
// decided.
//
// The user message is the script. A first line `#script` makes each following line a command:
//
//   say <text>             stream <text> as word-sized text_delta stream events, then the assistant text block
//                          ("\n" in <text> is a newline, "{turn}" the number of turns this process ran)
//   tool <Name> <json>     tool_use, then the permission decision above: allowed → tool_result "ran <Name>: <input
//                          json>" (+ " (updated input: <json>)" when the allow changed it); denied → error tool_result
//                          with the message, listed in permission_denials; denied with interrupt → the turn stops
//   tool-auto <Name> <json> tool_use and tool_result without asking
//   agent <seconds> <text> an `Agent` tool_use run in the background (task_started, "Async agent launched…"); the
//                          turn goes on. <seconds> after its result: the sub-agent's reply, task_updated,
//                          task_notification (summary <text>), then a turn of the CLI's own saying <text> (init,
//                          status, deltas, result with origin; no user_message_uuid(s), no lifecycle). User lines
//                          arriving meanwhile wait for it.
//   retry <n>              n `api_retry` lines (error_status 529, "overloaded") for the next model request, 20 ms
//                          apart, then the script goes on
//   stamped <tag> <count>  <count> text deltas "bench:<tag>:<n>:<CLOCK_MONOTONIC ns> ", each stamped right before its
//                          line is written (a latency probe for the benchmarks), then the assistant text block
//   sleep <seconds>        nothing for that long (an interrupt cuts it short)
//   cost <usd>             this turn's own cost (default 0.001), added to the process's total_cost_usd
//   fail <message>         result error_during_execution with errors [message] (the double's own fault: no
//                          terminal_reason)
//   crash                  "fatal: simulated crash" on stderr, exit 3, no result
//   garbage                a line that is not JSON and a line of an unknown type
//   title <text>           ignored (reserved)
//
// Anything else is the default turn: reply "Echo: <text>", result success.
//
// Environment: FAKE_CLAUDE_LOG=<file> appends one JSON line per event: {"event":"start","argv":[arguments without
// the program],"cwd","session_id"}, {"event":"stdin","line":<each stdin line as parsed>}, {"event":"exit","code"}.
// FAKE_CLAUDE_DELAY_MS (default 2) pauses before each line of a turn, so streaming is observable.

import Foundation
import RalphAPI

@main
struct FakeClaude {
    /// The `claude_code_version` the double reports (`--version`, `init`), so a test can tell which CLI ran.
    static let version = "0.0.1-fake"

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let environment = ProcessInfo.processInfo.environment
        let log = EventLog(path: environment["FAKE_CLAUDE_LOG"].flatMap { $0.isEmpty ? nil : $0 })
        let cwd = FileManager.default.currentDirectoryPath
        let config = environment["CLAUDE_CONFIG_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.claude"
        let sessions = SessionStore(configDirectory: config, cwd: cwd)

        func finish(_ code: Int32, error: String? = nil) -> Never {
            if let error { FileHandle.standardError.write(Data((error + "\n").utf8)) }
            log.append(["event": "exit", "code": .int(Int(code))])
            exit(code)
        }
        func logStart(_ sessionID: String?) {
            log.append([
                "event": "start", "argv": .array(arguments.map { .string($0) }), "cwd": .string(cwd), "session_id": sessionID.map { .string($0) } ?? .null,
            ])
        }

        // --version and --help win over everything else, as with commander.
        if let flag = arguments.first(where: { ["-v", "--version", "-h", "--help"].contains($0) }) {
            logStart(nil)
            let text = ["-v", "--version"].contains(flag) ? "\(version) (Claude Code)\n" : Help.text
            FileHandle.standardOutput.write(Data(text.utf8))
            finish(0)
        }

        // Flags and the session, checked before anything is printed; logged either way.
        let options: Options
        switch Options.parse(arguments) {
        case .failure(let error):
            logStart(nil)
            finish(1, error: error.message)
        case .success(let parsed):
            options = parsed
        }
        if let error = options.validate() {
            logStart(nil)
            finish(1, error: error.message)
        }
        let delay = environment["FAKE_CLAUDE_DELAY_MS"].flatMap { Int($0) } ?? 2
        let output = Output(format: options.outputFormat, delayMilliseconds: delay)
        let sessionID: String
        if let resume = options.resume {
            logStart(sessions.exists(resume) && UUID(uuidString: resume) != nil ? resume : nil)
            if UUID(uuidString: resume) == nil {
                let message =
                    "Error: --resume requires a valid session ID or session title when used with --print. Usage: claude -p --resume <session-id|title>. Provided value \"\(resume)\" is not a UUID and does not match any session title."
                lostSession(output, sessionID: Lines.uuid(), message: message)
                finish(1, error: message)
            }
            guard sessions.exists(resume) else {
                let message = "No conversation found with session ID: \(resume)"
                lostSession(output, sessionID: resume, message: message)
                finish(1, error: message)
            }
            sessionID = resume
        } else {
            sessionID = Lines.uuid()
            logStart(sessionID)
        }

        let inbox = Inbox(output: output, sessionID: sessionID, model: options.model, permissionMode: options.permissionMode)
        let conversation = Conversation(sessionID: sessionID, cwd: cwd, options: options, output: output, inbox: inbox, log: log, sessions: sessions)
        switch options.inputFormat {
        case .streamJSON:
            if let prompt = options.prompt { inbox.receiveUser(userMessage(prompt)) }
            StdinReader(inbox: inbox, output: output, log: log, sessionID: sessionID).start()
        case .text:
            let prompt = options.prompt ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            guard !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                finish(1, error: "Error: Input must be provided either through stdin or as a prompt argument when using --print")
            }
            inbox.receiveUser(userMessage(prompt))
            inbox.receiveEndOfInput()
        }
        while let work = inbox.nextWork() {
            conversation.run(work)
            inbox.endTurn()
        }
        finish(0)
    }

    /// The one line the CLI prints for a session it cannot resume: a result with zero usage and the message.
    static func lostSession(_ output: Output, sessionID: String, message: String) {
        guard output.format != .text else { return }
        output.finalResult([
            "type": "result", "subtype": "error_during_execution", "duration_ms": 0, "duration_api_ms": 0, "is_error": true, "num_turns": 0,
            "stop_reason": nil, "session_id": .string(sessionID), "total_cost_usd": 0, "usage": Lines.usage(input: 0, output: 0, cacheRead: 0),
            "modelUsage": [:], "permission_denials": [], "uuid": .string(Lines.uuid()), "errors": [.string(message)], "result_index": 0,
        ])
    }

    /// A stdin `user` line for a prompt given as an argument.
    static func userMessage(_ text: String) -> UserMessage {
        UserMessage(line: JSONObject([("type", "user"), ("message", ["role": "user", "content": .string(text)])]))
    }
}
