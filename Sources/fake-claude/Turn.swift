import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#endif

/// One turn. For user messages, their text is the script (see the comment at the top of FakeClaude.swift): without a
/// `#script` first line the reply is `Echo: <text>`; with it, each following line is a command. The CLI's own turn
/// after a background agent says what the agent reported.
struct Turn {
    /// Why a turn stopped before the end of its script.
    enum Stop: Error {
        /// An interrupt, while the model streamed (or the turn slept), or while a tool waited for permission (or was
        /// denied with `interrupt`).
        case interrupted(whileTools: Bool)
        case failed(String)
    }

    let conversation: Conversation
    /// The messages the turn started with; none for the CLI's own turn.
    let messages: [UserMessage]
    let agent: BackgroundAgent?
    let model: String
    let started = Date()
    /// Messages that arrived during the turn and were taken into one of its later model requests.
    var drained: [UserMessage] = []
    var messageID: String?
    var blockIndex = 0
    /// Whether the current model request was announced (`status` `requesting`), and so took in queued messages.
    var requestAnnounced = false
    /// Model requests whose message ended (an interrupted turn without one costs nothing).
    var completedRequests = 0
    /// The first `message_start` and the first `assistant` line of a turn name its user messages.
    var tagMessageStart = true
    var tagAssistant = true
    var apiCalls = 1
    var costUSD = 0.001
    var outputTokens = 0
    var lastText = ""
    var denials: [JSONValue] = []
    /// Background agents launched by this turn, scheduled once its result is out.
    var launched: [BackgroundAgent] = []

    init(conversation: Conversation, messages: [UserMessage] = [], agent: BackgroundAgent? = nil) {
        self.conversation = conversation
        self.messages = messages
        self.agent = agent
        model = conversation.inbox.current.model
    }

    var output: Output { conversation.output }
    var sessionID: JSONValue { .string(conversation.sessionID) }
    var partials: Bool { conversation.options.includePartialMessages }
    /// The uuids of the turn's user messages, those it started with first.
    var userMessageUUIDs: [String] { (messages + drained).compactMap(\.uuid) }

    /// Runs the turn: `init`, the first request's `status`, the replays, the script (or the agent's report), and one
    /// `result`, with the lifecycle of its user messages.
    mutating func run() {
        output.emit(conversation.initLine(userMessageUUIDs: messages.compactMap(\.uuid)), paced: false)
        announceRequest()
        for message in messages { replay(message) }
        let lines = agent == nil ? Self.commands(in: messages.map(\.text).joined(separator: "\n")) : []
        do throws(Stop) {
            if let agent { try say(agent.text) }
            for line in lines {
                try checkInterrupt()
                try command(line.trimmingCharacters(in: .whitespaces))
            }
            try checkInterrupt()
            endMessage(stopReason: "end_turn")
            for message in drained { lifecycle(message, "completed") }
            finish(subtype: "success", stopReason: "end_turn", resultText: lastText, terminalReason: "completed")
            for message in messages { lifecycle(message, "completed") }
        } catch {
            stopped(by: error)
            for message in messages + drained { lifecycle(message, "cancelled") }
        }
        for agent in launched { conversation.inbox.schedule(agent) }
    }

    /// The script of a message text: the lines after a `#script` first line, else one `say Echo: <text>`.
    static func commands(in text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.first?.trimmingCharacters(in: .whitespaces) == "#script" else { return ["say Echo: " + text] }
        lines.removeFirst()
        return lines
    }

    /// Ends a turn that stopped early: an interrupt as the CLI ends it (a marker line, an `aborted_…` result), or a
    /// `fail`.
    private mutating func stopped(by stop: Stop) {
        switch stop {
        case .interrupted(let whileTools):
            messageID = nil
            let marker = whileTools ? "[Request interrupted by user for tool use]" : "[Request interrupted by user]"
            output.emit(Lines.userText(marker, sessionID: conversation.sessionID))
            finish(
                subtype: "error_during_execution", stopReason: whileTools ? "tool_use" : nil,
                errors: ["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=\(whileTools ? "tool_use" : "null")"],
                terminalReason: whileTools ? "aborted_tools" : "aborted_streaming", charged: completedRequests > 0
            )
        case .failed(let message):
            endMessage(stopReason: nil)
            finish(subtype: "error_during_execution", stopReason: nil, resultText: message, errors: [message], terminalReason: nil)
        }
    }

    func checkInterrupt() throws(Stop) {
        if conversation.inbox.isInterrupted { throw .interrupted(whileTools: false) }
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
        case "agent":
            let seconds = String(rest.prefix { $0 != " " })
            guard let delay = Double(seconds), delay >= 0 else { throw .failed("fake-claude: `agent` needs <seconds> <text>") }
            try launchAgent(after: delay, text: rest.dropFirst(seconds.count).trimmingCharacters(in: .whitespaces))
        case "retry":
            guard let count = Int(rest), count > 0 else { throw .failed("fake-claude: `retry` needs a number of retries") }
            try retry(count)
        case "stamped":
            let parts = rest.split(separator: " ").compactMap { Int($0) }
            guard parts.count == 2, parts[0] >= 0, parts[1] > 0 else { throw .failed("fake-claude: `stamped` needs <tag> <count>") }
            try stamped(tag: parts[0], count: parts[1])
        case "sleep":
            guard let seconds = Double(rest), seconds >= 0 else { throw .failed("fake-claude: `sleep` needs a number of seconds") }
            guard conversation.inbox.sleep(seconds) else { throw .interrupted(whileTools: false) }
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

    /// Streams `text` as word-sized deltas and the complete `assistant` text block.
    mutating func say(_ text: String) throws(Stop) {
        beginMessage()
        let index = blockIndex
        blockIndex += 1
        streamEvent(["type": "content_block_start", "index": .int(index), "content_block": ["type": "text", "text": ""]])
        for chunk in Self.wordChunks(text) {
            try checkInterrupt()
            streamEvent(["type": "content_block_delta", "index": .int(index), "delta": ["type": "text_delta", "text": .string(chunk)]])
            outputTokens += 1
        }
        assistant(["type": "text", "text": .string(text)])
        streamEvent(["type": "content_block_stop", "index": .int(index)])
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
                    "type": "stream_event", "session_id": sessionID, "parent_tool_use_id": nil, "uuid": .string(Lines.uuid()),
                    "event": ["type": "content_block_delta", "index": .int(index), "delta": ["type": "text_delta", "text": .string(chunk)]],
                ]
            }
            outputTokens += 1
        }
        assistant(["type": "text", "text": .string(text)])
        streamEvent(["type": "content_block_stop", "index": .int(index)])
        lastText = text
    }

    /// `api_retry` lines for the next model request, which the API answered 529 (overloaded) `count` times, each
    /// followed by a short pause; `retry_delay_ms` reports the real CLI's backoff, the double waits 20 ms.
    private mutating func retry(_ count: Int) throws(Stop) {
        if messageID == nil { announceRequest() }
        for attempt in 1...count {
            output.emit([
                "type": "system", "subtype": "api_retry", "attempt": .int(attempt), "max_retries": 10,
                "retry_delay_ms": .int(min(32_000, 500 << min(attempt - 1, 6))), "error_status": 529, "error": "overloaded", "session_id": sessionID,
                "uuid": .string(Lines.uuid()),
            ])
            guard conversation.inbox.sleep(0.02) else { throw .interrupted(whileTools: false) }
        }
    }

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
}
