import RalphAPI

/// What an agent CLI's output means to the conversation machine, whichever CLI it is: the machine's whole input
/// vocabulary from the agent. The cases follow Claude Code's stream-json (`claude -p --output-format stream-json
/// --verbose --include-partial-messages --permission-prompt-tool stdio`, reference §3.2), which ``ClaudeStreamDecoder``
/// maps one to one; another backend's adapter translates its own protocol into them. Anything an adapter does not
/// understand becomes ``other`` with the raw message kept.
public enum AgentEvent: Sendable, Hashable {
    /// `system` lines but those below. `init` starts every turn (ours and the CLI's own) and carries the session id,
    /// the version and the permission mode; `status` comes before each model request and when the mode changes.
    case system(AgentSystem)
    /// `system` `api_retry`: a model request failed and is tried again after a delay.
    case apiRetry(attempt: Int, maxRetries: Int?, error: String, errorStatus: Int?, retryDelayMs: Int?)
    /// `system` `task_notification`: a background task (a sub-agent) ended; the CLI may start a turn of its own next.
    case taskNotification(taskID: String?, status: String?, summary: String?)
    /// `command_lifecycle`: what became of a user line sent with a `uuid` (`queued`, `started`, `completed`,
    /// `cancelled`).
    case lifecycle(commandUUID: String, state: String)
    /// A `stream_event` `content_block_delta` with a `text_delta`.
    case textDelta(text: String, parentToolUseID: String?)
    /// A `text` block of an `assistant` line (the complete text, after its deltas).
    case assistantText(messageID: String?, text: String, parentToolUseID: String?)
    /// A `tool_use` block of an `assistant` line.
    case toolUse(messageID: String?, toolUseID: String, name: String, input: JSONValue, parentToolUseID: String?)
    /// `tool_result` blocks of a `user` line.
    case toolResults([AgentToolResult], parentToolUseID: String?)
    /// A `user` line whose content is a plain string, e.g. `<local-command-stdout>…</local-command-stdout>`.
    case userText(String)
    /// `control_request` `can_use_tool`: the CLI blocks until it gets a `control_response`.
    case permissionRequest(AgentPermissionRequest)
    /// `control_response` to a request the host sent (e.g. `interrupt`).
    case controlResponse(requestID: String?, success: Bool, error: String?)
    /// `result`: the end of a turn.
    case result(AgentTurnResult)
    /// The agent cannot resume the session it was started with (Codex: `thread/resume` of a thread it does not have);
    /// it ends by itself, and the conversation goes on in a new session.
    case sessionLost(reason: String)
    /// Anything else (thinking blocks, other stream events, unknown types): ignored, kept raw.
    case other(type: String, raw: JSONValue)
    /// A line that is not a JSON object (logged and skipped).
    case notJSON(String)
}

/// A `system` line.
public struct AgentSystem: Sendable, Hashable {
    public var subtype: String
    public var sessionID: String?
    public var model: String?
    /// `permissionMode`, on `init` and on a `status` line announcing a mode change.
    public var permissionMode: String?
    /// `claude_code_version` (on `init`).
    public var version: String?
    /// `capabilities` (on `init`), e.g. `msg_lifecycle_v1`; nil when absent.
    public var capabilities: [String]?
    /// `status` of a `status` line (`requesting`, or null).
    public var status: String?
    /// `user_message_uuids`: the user lines (by the `uuid` we gave them) the CLI is working on.
    public var userMessageUUIDs: [String]

    public init(
        subtype: String, sessionID: String? = nil, model: String? = nil, permissionMode: String? = nil, version: String? = nil,
        capabilities: [String]? = nil, status: String? = nil, userMessageUUIDs: [String] = []
    ) {
        self.subtype = subtype
        self.sessionID = sessionID
        self.model = model
        self.permissionMode = permissionMode
        self.version = version
        self.capabilities = capabilities
        self.status = status
        self.userMessageUUIDs = userMessageUUIDs
    }
}

public struct AgentToolResult: Sendable, Hashable {
    public var toolUseID: String
    /// The result as text: a string content as is, the `text` of block content joined with newlines.
    public var output: String
    public var isError: Bool
    /// For a file edit, what it changed on disk (added by the server, which read the files before and after).
    public var diffs: [FileDiff]?

    public init(toolUseID: String, output: String, isError: Bool, diffs: [FileDiff]? = nil) {
        self.toolUseID = toolUseID
        self.output = output
        self.isError = isError
        self.diffs = diffs
    }
}

public struct AgentPermissionRequest: Sendable, Hashable {
    public var requestID: String
    public var toolName: String
    public var input: JSONValue
    public var toolUseID: String?
    /// `permission_suggestions` as sent (an array of PermissionUpdate objects), `[]` when absent.
    public var suggestions: JSONValue
    public var decisionReason: String?
    public var blockedPath: String?
    public var description: String?
    public var displayName: String?
    /// For a file edit, what it would change (added by the server, which read the files as they are).
    public var diffs: [FileDiff]?

    public init(
        requestID: String, toolName: String, input: JSONValue, toolUseID: String?, suggestions: JSONValue = .array([]), decisionReason: String? = nil,
        blockedPath: String? = nil, description: String? = nil, displayName: String? = nil, diffs: [FileDiff]? = nil
    ) {
        self.requestID = requestID
        self.toolName = toolName
        self.input = input
        self.toolUseID = toolUseID
        self.suggestions = suggestions
        self.decisionReason = decisionReason
        self.blockedPath = blockedPath
        self.description = description
        self.displayName = displayName
        self.diffs = diffs
    }
}

public struct AgentTurnResult: Sendable, Hashable {
    public var subtype: String
    public var isError: Bool
    public var sessionID: String?
    public var durationMs: Int?
    /// The process's running total (it starts again at 0 in a new process, `--resume` included), not the turn's cost.
    public var totalCostUSD: Double?
    public var usage: TokenUsage
    public var numTurns: Int?
    /// `result` text of a `success` (the last text block), or the error text.
    public var resultText: String?
    /// `errors[]` of the error subtypes.
    public var errors: [String]
    public var stopReason: String?
    /// `permission_denials[].tool_name`.
    public var deniedTools: [String]
    /// `user_message_uuids`: the user lines (by our `uuid`) this result answers; empty for a turn the CLI started itself.
    public var userMessageUUIDs: [String]
    /// `api_error_status`: the HTTP status of the model request that failed the turn.
    public var apiErrorStatus: Int?

    public init(
        subtype: String, isError: Bool, sessionID: String? = nil, durationMs: Int? = nil, totalCostUSD: Double? = nil, usage: TokenUsage = TokenUsage(),
        numTurns: Int? = nil, resultText: String? = nil, errors: [String] = [], stopReason: String? = nil, deniedTools: [String] = [],
        userMessageUUIDs: [String] = [], apiErrorStatus: Int? = nil
    ) {
        self.subtype = subtype
        self.isError = isError
        self.sessionID = sessionID
        self.durationMs = durationMs
        self.totalCostUSD = totalCostUSD
        self.usage = usage
        self.numTurns = numTurns
        self.resultText = resultText
        self.errors = errors
        self.stopReason = stopReason
        self.deniedTools = deniedTools
        self.userMessageUUIDs = userMessageUUIDs
        self.apiErrorStatus = apiErrorStatus
    }

    /// The error text of a failed result: its `errors`, else its `result` text.
    public var errorText: String {
        errors.isEmpty ? (resultText ?? "") : errors.joined(separator: "; ")
    }
}
