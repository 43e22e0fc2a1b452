// fake-claude: a test double of the `claude` CLI (Claude Code), which cannot be installed here.
//
// It speaks the real headless stream-json protocol (docs: shared/reference/chat-and-auto-reply-sources.md §3), so
// the server's agent driver can be tested end to end against a process:
//
//   fake-claude -p --input-format stream-json --output-format stream-json --verbose --include-partial-messages \
//               --permission-prompt-tool stdio [--resume <id>] [--model <m>] [--permission-mode <m>]
//
// - Flags as the real CLI: -p/--print is required; stream-json output without --verbose, unknown options and bad
//   choices are errors (exit 1). Also: --allowedTools/--disallowedTools (tool lists), --dangerously-skip-permissions,
//   a prompt argument (the first user message), and the text/json output formats for a single prompt.
// - Sessions live in <CLAUDE_CONFIG_DIR or ~/.claude>/projects/<cwd with "/" → "-">/<session_id>.jsonl (one line
//   per user message, assistant line and tool result). --resume of an id without a file for this cwd fails with
//   "No conversation found with session ID: <id>"; otherwise the id is kept.
// - stdout: `system`/`init` first; then one turn per stdin `user` line, each ending with one `result` line. User lines
//   sent during a turn wait for it. A `control_request` `interrupt` stops the running turn (result
//   error_during_execution, "Request interrupted by user"). End of stdin: exit 0 after the current turn.
//
// The user message is the script. A first line `#script` makes each following line a command:
//
//   say <text>             stream <text> as word-sized text_delta stream events, then the assistant text block
//                          ("\n" in <text> is a newline, "{turn}" the number of turns this process ran)
//   tool <Name> <json>     tool_use, then (unless allowed) control_request can_use_tool and wait for the answer:
//                          allow → tool_result "ran <Name>: <input json>" (+ " (updated input: <json>)" when the
//                          allow changed it; updatedPermissions addRules make later calls of the tool run unasked);
//                          deny → error tool_result with the message, listed in permission_denials;
//                          deny with interrupt → the turn ends as interrupted
//   tool-auto <Name> <json> tool_use and tool_result without asking
//   stamped <tag> <count>  <count> text deltas "bench:<tag>:<n>:<CLOCK_MONOTONIC ns> ", each stamped right before its
//                          line is written (a latency probe for the benchmarks), then the assistant text block
//   sleep <seconds>        nothing for that long (an interrupt cuts it short)
//   cost <usd>             the turn's total_cost_usd (default 0.001)
//   fail <message>         result error_during_execution with errors [message]
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

#if canImport(Glibc)
import Glibc
#endif

/// Where sessions are kept: `<config>/projects/<cwd with "/" replaced by "-">/<session_id>.jsonl`.
struct SessionStore: Sendable {
    let directory: String

    init(configDirectory: String, cwd: String) {
        directory = configDirectory + "/projects/" + cwd.replacingOccurrences(of: "/", with: "-")
    }

    func path(_ sessionID: String) -> String { directory + "/" + sessionID + ".jsonl" }

    func exists(_ sessionID: String) -> Bool {
        !sessionID.contains("/") && FileManager.default.fileExists(atPath: path(sessionID))
    }

    func append(_ line: JSONValue, to sessionID: String) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = open(path(sessionID), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        writeAll(fd, JSONWriter.bytes(line) + [0x0A])
    }
}

@main
struct FakeClaude {
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

        // Flags and the session, checked before anything is printed; logged either way.
        var problem: String?
        var sessionID: String?
        let parsed = Options.parse(arguments)
        switch parsed {
        case .failure(let error):
            problem = error.message
        case .success(let options):
            if let error = options.validate() {
                problem = error.message
            } else if let resume = options.resume {
                if sessions.exists(resume) { sessionID = resume } else { problem = "No conversation found with session ID: \(resume)" }
            } else {
                sessionID = Turn.uuid()
            }
        }
        log.append([
            "event": "start", "argv": .array(arguments.map { .string($0) }), "cwd": .string(cwd), "session_id": sessionID.map { .string($0) } ?? .null,
        ])
        guard case .success(let options) = parsed, let sessionID, problem == nil else { finish(1, error: problem) }

        let delay = environment["FAKE_CLAUDE_DELAY_MS"].flatMap { Int($0) } ?? 2
        let output = Output(format: options.outputFormat, delayMilliseconds: delay)
        let inbox = Inbox(model: options.model, permissionMode: options.permissionMode)
        let conversation = Conversation(sessionID: sessionID, cwd: cwd, options: options, output: output, inbox: inbox, log: log, sessions: sessions)
        let announce: @Sendable () -> Void = {
            let current = inbox.current
            output.emit(initLine(sessionID: sessionID, cwd: cwd, model: current.model, permissionMode: current.permissionMode), paced: false)
        }
        announce()

        func runTurn(_ message: JSONObject) {
            sessions.append(
                [
                    "type": "user", "message": message["message"] ?? .null, "session_id": .string(sessionID), "uuid": .string(Turn.uuid()),
                    "timestamp": .string(Timestamp.now()), "cwd": .string(cwd),
                ],
                to: sessionID
            )
            conversation.runTurn(text: userText(message))
        }

        switch options.inputFormat {
        case .streamJSON:
            if let prompt = options.prompt { inbox.receiveUser(userMessage(prompt)) }
            StdinReader(inbox: inbox, output: output, log: log, announce: announce).start()
            while let message = inbox.nextMessage() {
                runTurn(message)
                inbox.endTurn()
            }
        case .text:
            let prompt = options.prompt ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            guard !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                finish(1, error: "Error: Input must be provided either through stdin or as a prompt argument when using --print")
            }
            runTurn(userMessage(prompt))
        }
        finish(0)
    }

    static func initLine(sessionID: String, cwd: String, model: String, permissionMode: String) -> JSONValue {
        [
            "type": "system", "subtype": "init", "cwd": .string(cwd), "session_id": .string(sessionID),
            "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch", "TodoWrite", "WebSearch"], "mcp_servers": [],
            "model": .string(model), "permissionMode": .string(permissionMode), "slash_commands": ["compact", "context", "cost"], "apiKeySource": "none",
            "claude_code_version": "2.1.40-fake", "output_style": "default", "agents": [], "skills": [], "plugins": [], "uuid": .string(Turn.uuid()),
        ]
    }

    /// A stdin `user` line for a prompt given as an argument.
    static func userMessage(_ text: String) -> JSONObject {
        JSONObject([("type", "user"), ("message", ["role": "user", "content": .string(text)])])
    }

    /// The text of a `user` line: a string content, or the text blocks joined with newlines.
    static func userText(_ message: JSONObject) -> String {
        switch message["message"]?.objectValue?["content"] {
        case .string(let text)?:
            return text
        case .array(let blocks)?:
            return blocks.compactMap { $0.objectValue?["type"]?.stringValue == "text" ? $0.objectValue?["text"]?.stringValue : nil }.joined(separator: "\n")
        default:
            return ""
        }
    }
}
