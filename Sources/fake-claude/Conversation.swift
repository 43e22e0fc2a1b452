import Foundation
import RalphAPI

/// Tokens and cost of one turn, or summed over several.
struct Usage {
    var inputTokens = 0
    var outputTokens = 0
    var cacheReadTokens = 0
    var costUSD = 0.0

    mutating func add(_ other: Usage) {
        inputTokens += other.inputTokens
        outputTokens += other.outputTokens
        cacheReadTokens += other.cacheReadTokens
        costUSD += other.costUSD
    }

    /// The per-model entry of `modelUsage` and `model_usage_since_last_result`.
    var perModel: JSONValue {
        [
            "inputTokens": .int(inputTokens), "outputTokens": .int(outputTokens), "cacheReadInputTokens": .int(cacheReadTokens),
            "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": .double(costUSD),
        ]
    }
}

/// What the double remembers across the turns of one process: permissions, the running cost, result numbering and
/// the background agents still running. Used by the turn thread only.
final class Conversation {
    let sessionID: String
    let cwd: String
    let options: Options
    let output: Output
    let inbox: Inbox
    let log: EventLog
    let sessions: SessionStore
    var permissions: Permissions
    /// Turns run by this process (`{turn}` in a `say` text).
    var turnsRun = 0
    /// Background agents launched and not yet reported finished.
    var runningAgents: [BackgroundAgent] = []
    private var resultCount = 0
    private var totalCostUSD = 0.0
    /// Usage per model, summed over this process, in the order the models were first used.
    private var modelUsage: [(model: String, usage: Usage)] = []

    init(sessionID: String, cwd: String, options: Options, output: Output, inbox: Inbox, log: EventLog, sessions: SessionStore) {
        self.sessionID = sessionID
        self.cwd = cwd
        self.options = options
        self.output = output
        self.inbox = inbox
        self.log = log
        self.sessions = sessions
        permissions = Permissions(options: options, cwd: cwd)
    }

    /// Runs one turn: for user messages, or the CLI's own turn after a background agent finished (reported first).
    func run(_ work: Work) {
        turnsRun += 1
        switch work {
        case .user(let messages):
            for message in messages { store(message) }
            var turn = Turn(conversation: self, messages: messages)
            turn.run()
        case .agent(let agent):
            reportFinished(agent)
            var turn = Turn(conversation: self, agent: agent)
            turn.run()
        }
    }

    /// Appends a user message to the session file.
    func store(_ message: UserMessage) {
        sessions.append(
            [
                "type": "user", "message": message.line["message"] ?? .null, "session_id": .string(sessionID), "uuid": .string(message.uuid ?? Lines.uuid()),
                "timestamp": .string(Timestamp.format(message.received)), "cwd": .string(cwd),
            ],
            to: sessionID
        )
    }

    /// Adds a finished turn's usage to the process totals. Returns the turn's `result_index`, the running
    /// `total_cost_usd` and the cumulative `modelUsage`.
    func record(_ usage: Usage?, model: String) -> (index: Int, totalCostUSD: Double, modelUsage: JSONValue) {
        if let usage {
            totalCostUSD += usage.costUSD
            if let i = modelUsage.firstIndex(where: { $0.model == model }) {
                modelUsage[i].usage.add(usage)
            } else {
                modelUsage.append((model, usage))
            }
        }
        resultCount += 1
        return (resultCount - 1, totalCostUSD, .object(JSONObject(modelUsage.map { ($0.model, $0.usage.perModel) })))
    }

    /// The tools `init` lists, less those disallowed as a whole.
    static let tools = ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "WebFetch", "TodoWrite", "WebSearch"]

    /// The `system`/`init` line that starts every turn.
    func initLine(userMessageUUIDs: [String]) -> JSONValue {
        let current = inbox.current
        var line = JSONObject([
            ("type", "system"), ("subtype", "init"), ("cwd", .string(cwd)), ("session_id", .string(sessionID)),
            ("tools", Lines.strings(Self.tools.filter { !permissions.isUnavailable($0) })),
            ("mcp_servers", []), ("model", .string(current.model)), ("permissionMode", .string(current.permissionMode)),
            ("slash_commands", ["compact", "context", "cost"]), ("apiKeySource", "none"), ("claude_code_version", .string(FakeClaude.version)),
            ("output_style", "default"), ("agents", ["general-purpose"]), ("skills", []), ("plugins", []),
            ("capabilities", ["interrupt_receipt_v1", "msg_lifecycle_v1"]), ("uuid", .string(Lines.uuid())),
            ("additional_directories", Lines.strings(permissions.additionalDirectories)),
        ])
        if !userMessageUUIDs.isEmpty { line["user_message_uuids"] = Lines.strings(userMessageUUIDs) }
        return .object(line)
    }

    /// `system`/`background_tasks_changed` with the agents still running.
    func backgroundTasksChanged() -> JSONValue {
        [
            "type": "system", "subtype": "background_tasks_changed",
            "tasks": .array(
                runningAgents.map { agent in
                    [
                        "task_id": .string(agent.taskID), "task_type": "local_agent", "subagent_type": "general-purpose",
                        "description": .string(agent.description),
                    ]
                }
            ),
            "uuid": .string(Lines.uuid()), "session_id": .string(sessionID),
        ]
    }

    /// What the CLI prints when a background agent finishes: the sub-agent's reply (a line with its
    /// `parent_tool_use_id`), `task_updated`, `task_notification` and `background_tasks_changed`.
    private func reportFinished(_ agent: BackgroundAgent) {
        let session: JSONValue = .string(sessionID)
        output.emit([
            "type": "assistant",
            "message": [
                "id": .string("msg_" + Lines.randomID()), "type": "message", "role": "assistant", "model": .string(inbox.current.model),
                "content": [["type": "text", "text": .string(agent.text)]], "stop_reason": nil, "stop_sequence": nil,
                "usage": ["input_tokens": 12, "output_tokens": 1],
            ],
            "parent_tool_use_id": .string(agent.toolUseID), "agent_id": .string(agent.taskID), "session_id": session, "uuid": .string(Lines.uuid()),
            "timestamp": .string(Timestamp.now()), "subagent_type": "general-purpose", "task_description": .string(agent.description),
        ])
        output.emit([
            "type": "system", "subtype": "task_updated", "task_id": .string(agent.taskID),
            "patch": ["status": "completed", "end_time": .int(Int(Date().timeIntervalSince1970 * 1000))], "uuid": .string(Lines.uuid()),
            "session_id": session,
        ])
        output.emit([
            "type": "system", "subtype": "task_notification", "task_id": .string(agent.taskID), "tool_use_id": .string(agent.toolUseID),
            "status": "completed", "summary": .string(agent.text), "summary_is_report": true,
            "usage": ["total_tokens": 13, "tool_uses": 0, "duration_ms": .int(Int(agent.seconds * 1000))], "uuid": .string(Lines.uuid()),
            "session_id": session,
        ])
        runningAgents.removeAll { $0.taskID == agent.taskID }
        output.emit(backgroundTasksChanged())
    }
}
