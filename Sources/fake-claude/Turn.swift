import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#endif

/// What the double remembers across turns of one process.
final class Conversation {
    let sessionID: String
    let cwd: String
    let options: Options
    let output: Output
    let inbox: Inbox
    let log: EventLog
    let sessions: SessionStore
    /// Tools allowed without asking: `--allowedTools`, plus "allow for this session" rules sent with an allow.
    var allowedTools: Set<String>
    var nextRequestNumber = 1
    /// Turns run by this process (`{turn}` in a `say` text).
    var turnsRun = 0

    init(sessionID: String, cwd: String, options: Options, output: Output, inbox: Inbox, log: EventLog, sessions: SessionStore) {
        self.sessionID = sessionID
        self.cwd = cwd
        self.options = options
        self.output = output
        self.inbox = inbox
        self.log = log
        self.sessions = sessions
        allowedTools = Set(options.allowedTools.map(Options.toolName(ofRule:)))
    }

    /// Runs one turn for a `user` message, ending with exactly one result (unless the script says `crash`).
    func runTurn(text: String) {
        turnsRun += 1
        var turn = Turn(conversation: self)
        turn.run(text: text)
    }
}

/// One turn: the user message is the script.
///
/// Without a `#script` first line the reply is `Echo: <text>`. With it, each following line is a command:
/// `say <text>`, `tool <Name> <json>`, `tool-auto <Name> <json>`, `sleep <seconds>`, `cost <usd>`, `fail <message>`,
/// `crash`, `garbage`, `title <text>` (see the comment at the top of FakeClaude.swift).
struct Turn {
    /// Why a turn stopped before the end of its script.
    enum Stop: Error {
        case interrupted
        case failed(String)
    }

    let conversation: Conversation
    let started = Date()
    var messageID: String?
    var blockIndex = 0
    var apiCalls = 1
    var costUSD = 0.001
    var outputTokens = 0
    var lastText = ""
    var denials: [JSONValue] = []

    init(conversation: Conversation) {
        self.conversation = conversation
    }

    private var output: Output { conversation.output }
    private var sessionID: JSONValue { .string(conversation.sessionID) }
    private var partials: Bool { conversation.options.includePartialMessages }

    mutating func run(text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.first?.trimmingCharacters(in: .whitespaces) == "#script" {
            lines.removeFirst()
        } else {
            lines = ["say Echo: " + text]
        }
        do throws(Stop) {
            for line in lines {
                try checkInterrupt()
                try command(line.trimmingCharacters(in: .whitespaces))
            }
            try checkInterrupt()
            endMessage(stopReason: "end_turn")
            finish(subtype: "success", isError: false, stopReason: "end_turn", resultText: lastText)
        } catch {
            endMessage(stopReason: nil)
            switch error {
            case .interrupted:
                finish(subtype: "error_during_execution", isError: true, stopReason: nil, errors: ["Request interrupted by user"])
            case .failed(let message):
                finish(subtype: "error_during_execution", isError: true, stopReason: nil, resultText: message, errors: [message])
            }
        }
    }

    private func checkInterrupt() throws(Stop) {
        if conversation.inbox.isInterrupted { throw .interrupted }
    }

    private mutating func command(_ line: String) throws(Stop) {
        guard !line.isEmpty, !line.hasPrefix("#") else { return }
        let name = String(line.prefix { $0 != " " })
        let rest = String(line.dropFirst(name.count)).trimmingCharacters(in: .whitespaces)
        switch name {
        case "say":
            try say(rest.replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(of: "{turn}", with: String(conversation.turnsRun)))
        case "tool", "tool-auto":
            let toolName = String(rest.prefix { $0 != " " })
            guard !toolName.isEmpty else { throw .failed("fake-claude: `\(name)` needs a tool name") }
            let json = rest.dropFirst(toolName.count).trimmingCharacters(in: .whitespaces)
            let input: JSONValue
            do {
                input = json.isEmpty ? .object(JSONObject()) : try JSONParser.parse(json)
            } catch {
                throw .failed("fake-claude: invalid JSON input for \(toolName): \(error)")
            }
            try tool(toolName, input: input, ask: name == "tool")
        case "stamped":
            let parts = rest.split(separator: " ").compactMap { Int($0) }
            guard parts.count == 2, parts[0] >= 0, parts[1] > 0 else { throw .failed("fake-claude: `stamped` needs <tag> <count>") }
            try stamped(tag: parts[0], count: parts[1])
        case "sleep":
            guard let seconds = Double(rest), seconds >= 0 else { throw .failed("fake-claude: `sleep` needs a number of seconds") }
            guard conversation.inbox.sleep(seconds) else { throw .interrupted }
        case "cost":
            guard let usd = Double(rest) else { throw .failed("fake-claude: `cost` needs a number") }
            costUSD = usd
        case "fail":
            throw .failed(rest)
        case "crash":
            FileHandle.standardError.write(Data("fatal: simulated crash\n".utf8))
            conversation.log.append(["event": "exit", "code": 3])
            exit(3)
        case "garbage":
            output.emitRaw("this line is not JSON {")
            output.emit(["type": "mystery_type", "x": 1])
        case "title":
            break
        default:
            throw .failed("fake-claude: unknown script command `\(name)`")
        }
    }

    // MARK: Assistant output

    /// Streams `text` as word-sized deltas, then the complete `assistant` text block.
    private mutating func say(_ text: String) throws(Stop) {
        beginMessage()
        let index = blockIndex
        blockIndex += 1
        streamEvent(["type": "content_block_start", "index": .int(index), "content_block": ["type": "text", "text": ""]])
        for chunk in Self.wordChunks(text) {
            try checkInterrupt()
            streamEvent(["type": "content_block_delta", "index": .int(index), "delta": ["type": "text_delta", "text": .string(chunk)]])
            outputTokens += 1
        }
        streamEvent(["type": "content_block_stop", "index": .int(index)])
        assistant(["type": "text", "text": .string(text)])
        lastText = text
    }

    /// Streams `count` text deltas `bench:<tag>:<n>:<CLOCK_MONOTONIC ns> `, each stamped right before it is written,
    /// then the assistant text block (the stamps of the deltas).
    private mutating func stamped(tag: Int, count: Int) throws(Stop) {
        beginMessage()
        let index = blockIndex
        blockIndex += 1
        streamEvent(["type": "content_block_start", "index": .int(index), "content_block": ["type": "text", "text": ""]])
        var text = ""
        for n in 0..<count {
            try checkInterrupt()
            guard partials else { break }
            output.emitStamped { stamp in
                let chunk = "bench:\(tag):\(n):\(stamp) "
                text += chunk
                return [
                    "type": "stream_event", "session_id": sessionID, "parent_tool_use_id": nil, "uuid": .string(Self.uuid()),
                    "event": ["type": "content_block_delta", "index": .int(index), "delta": ["type": "text_delta", "text": .string(chunk)]],
                ]
            }
            outputTokens += 1
        }
        streamEvent(["type": "content_block_stop", "index": .int(index)])
        assistant(["type": "text", "text": .string(text)])
        lastText = text
    }

    private mutating func tool(_ name: String, input: JSONValue, ask: Bool) throws(Stop) {
        beginMessage()
        let toolUseID = "toolu_" + Self.randomID()
        let index = blockIndex
        blockIndex += 1
        streamEvent([
            "type": "content_block_start", "index": .int(index),
            "content_block": ["type": "tool_use", "id": .string(toolUseID), "name": .string(name), "input": [:]],
        ])
        streamEvent(["type": "content_block_delta", "index": .int(index), "delta": ["type": "input_json_delta", "partial_json": .string(JSONWriter.string(input))]])
        streamEvent(["type": "content_block_stop", "index": .int(index)])
        assistant(["type": "tool_use", "id": .string(toolUseID), "name": .string(name), "input": input])
        outputTokens += 5
        endMessage(stopReason: "tool_use")

        let outcome: Permission
        if ask {
            outcome = try permission(for: name, input: input, toolUseID: toolUseID)
        } else {
            outcome = .allowed(input)
        }
        switch outcome {
        case .allowed(let updated):
            var text = "ran \(name): \(JSONWriter.string(input))"
            if updated != input { text += " (updated input: \(JSONWriter.string(updated)))" }
            toolResult(toolUseID: toolUseID, content: text, isError: false)
        case .denied(let message, let interrupt):
            denials.append(["tool_name": .string(name), "tool_use_id": .string(toolUseID), "tool_input": input])
            toolResult(toolUseID: toolUseID, content: message, isError: true)
            if interrupt { throw .interrupted }
        }
        apiCalls += 1
    }

    private enum Permission {
        case allowed(JSONValue)
        case denied(String, interrupt: Bool)
    }

    /// Decides like the CLI: allowed rules and bypass mode run at once; `dontAsk`, disallowed tools and print mode
    /// without a prompt tool deny; otherwise the host is asked with `can_use_tool` and the turn blocks for its answer.
    private mutating func permission(for name: String, input: JSONValue, toolUseID: String) throws(Stop) -> Permission {
        let options = conversation.options
        let mode = conversation.inbox.current.permissionMode
        if options.disallowedTools.map(Options.toolName(ofRule:)).contains(name) {
            return .denied("Permission to use \(name) has been denied.", interrupt: false)
        }
        if mode == "bypassPermissions" || conversation.allowedTools.contains(name) { return .allowed(input) }
        guard options.asksOverStdio, mode != "dontAsk" else {
            return .denied("Claude requested permissions to use \(name), but you haven't granted it yet.", interrupt: false)
        }
        let requestID = "req_\(conversation.nextRequestNumber)"
        conversation.nextRequestNumber += 1
        output.emit([
            "type": "control_request", "request_id": .string(requestID),
            "request": [
                "subtype": "can_use_tool", "tool_name": .string(name), "input": input, "tool_use_id": .string(toolUseID),
                "permission_suggestions": [["type": "addRules", "rules": [["toolName": .string(name)]], "behavior": "allow", "destination": "session"]],
                "decision_reason": .string("\(name) requires approval in \(mode) mode"),
            ],
        ])
        switch conversation.inbox.waitForResponse(requestID) {
        case .interrupted:
            throw .interrupted
        case .endOfInput:
            throw .failed("stdin closed while waiting for a permission decision")
        case .response(let response):
            let decision = response["response"]?.objectValue
            guard response["subtype"]?.stringValue == "success", let behavior = decision?["behavior"]?.stringValue else {
                return .denied(response["error"]?.stringValue ?? "Invalid permission response", interrupt: false)
            }
            if behavior == "allow" {
                rememberRules(decision?["updatedPermissions"])
                return .allowed(decision?["updatedInput"] ?? input)
            }
            return .denied(decision?["message"]?.stringValue ?? "Permission denied", interrupt: decision?["interrupt"]?.boolValue ?? false)
        }
    }

    /// `addRules` updates with behavior `allow` make their tools run without asking for the rest of this process.
    private func rememberRules(_ updates: JSONValue?) {
        guard case .array(let list)? = updates else { return }
        for update in list {
            guard let update = update.objectValue, update["type"]?.stringValue == "addRules", update["behavior"]?.stringValue == "allow",
                case .array(let rules)? = update["rules"]
            else { continue }
            for rule in rules {
                if let name = rule.objectValue?["toolName"]?.stringValue { conversation.allowedTools.insert(name) }
            }
        }
    }

    // MARK: Lines

    private mutating func beginMessage() {
        guard messageID == nil else { return }
        let id = "msg_" + Self.randomID()
        messageID = id
        blockIndex = 0
        streamEvent([
            "type": "message_start",
            "message": [
                "id": .string(id), "type": "message", "role": "assistant", "model": .string(conversation.inbox.current.model), "content": [],
                "stop_reason": nil, "usage": ["input_tokens": 12, "output_tokens": 1],
            ],
        ])
    }

    private mutating func endMessage(stopReason: String?) {
        guard messageID != nil else { return }
        messageID = nil
        streamEvent(["type": "message_delta", "delta": ["stop_reason": stopReason.map { .string($0) } ?? .null, "stop_sequence": nil], "usage": ["output_tokens": .int(outputTokens)]])
        streamEvent(["type": "message_stop"])
    }

    private func streamEvent(_ event: JSONValue) {
        guard partials else { return }
        output.emit(["type": "stream_event", "event": event, "session_id": sessionID, "parent_tool_use_id": nil, "uuid": .string(Self.uuid())])
    }

    private func assistant(_ block: JSONValue) {
        let line: JSONValue = [
            "type": "assistant",
            "message": [
                "id": .string(messageID ?? ""), "type": "message", "role": "assistant", "model": .string(conversation.inbox.current.model), "content": [block],
                "stop_reason": nil, "usage": ["input_tokens": 12, "output_tokens": .int(max(1, outputTokens))],
            ],
            "parent_tool_use_id": nil, "session_id": sessionID, "uuid": .string(Self.uuid()),
        ]
        output.emit(line)
        conversation.sessions.append(line, to: conversation.sessionID)
    }

    private func toolResult(toolUseID: String, content: String, isError: Bool) {
        let line: JSONValue = [
            "type": "user",
            "message": ["role": "user", "content": [["tool_use_id": .string(toolUseID), "type": "tool_result", "content": .string(content), "is_error": .bool(isError)]]],
            "parent_tool_use_id": nil, "session_id": sessionID, "uuid": .string(Self.uuid()),
            "tool_use_result": isError ? .string("Error: " + content) : ["stdout": .string(content), "stderr": "", "interrupted": false],
        ]
        output.emit(line)
        conversation.sessions.append(line, to: conversation.sessionID)
    }

    /// Writes the turn's `result` line.
    private func finish(subtype: String, isError: Bool, stopReason: String?, resultText: String? = nil, errors: [String]? = nil) {
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        var result = JSONObject([
            ("type", "result"), ("subtype", .string(subtype)), ("is_error", .bool(isError)), ("duration_ms", .int(milliseconds)),
            ("duration_api_ms", .int(milliseconds / 2)), ("num_turns", .int(apiCalls)),
        ])
        if let resultText { result["result"] = .string(resultText) }
        result["stop_reason"] = stopReason.map { .string($0) } ?? .null
        result["session_id"] = sessionID
        result["total_cost_usd"] = .double(costUSD)
        result["usage"] = [
            "input_tokens": .int(12 * apiCalls), "output_tokens": .int(max(1, outputTokens)), "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": .int(1000 * apiCalls),
        ]
        result["modelUsage"] = [:]
        result["permission_denials"] = .array(denials)
        if let errors { result["errors"] = .array(errors.map { .string($0) }) }
        result["uuid"] = .string(Self.uuid())
        output.finalResult(.object(result))
    }

    // MARK: Helpers

    /// `"Echo: hello world"` → `["Echo:", " hello", " world"]`: concatenated, exactly the text.
    static func wordChunks(_ text: String) -> [String] {
        var chunks: [String] = []
        var current = ""
        var hasWord = false
        for character in text {
            if character.isWhitespace && hasWord {
                chunks.append(current)
                current = ""
                hasWord = false
            }
            current.append(character)
            if !character.isWhitespace { hasWord = true }
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    static func randomID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<24).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }

    static func uuid() -> String { UUID().uuidString.lowercased() }
}
