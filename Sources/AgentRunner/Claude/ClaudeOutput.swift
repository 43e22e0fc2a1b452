import RalphAPI

/// What one stdout line of `claude -p --output-format stream-json --verbose --include-partial-messages
/// --permission-prompt-tool stdio` means to the driver (reference §3.2). ``ClaudeStreamDecoder`` turns a line into
/// zero or more of these; anything it does not understand becomes ``other`` with the raw line kept.
public enum ClaudeOutput: Sendable, Hashable {
    /// `system` lines. `init` carries the session id (and is repeated after mode/model changes).
    case system(subtype: String, sessionID: String?, model: String?)
    /// A `stream_event` `content_block_delta` with a `text_delta`.
    case textDelta(text: String, parentToolUseID: String?)
    /// A `text` block of an `assistant` line (the complete text, after its deltas).
    case assistantText(messageID: String?, text: String, parentToolUseID: String?)
    /// A `tool_use` block of an `assistant` line.
    case toolUse(messageID: String?, toolUseID: String, name: String, input: JSONValue, parentToolUseID: String?)
    /// `tool_result` blocks of a `user` line.
    case toolResults([ClaudeToolResult], parentToolUseID: String?)
    /// A `user` line whose content is a plain string, e.g. `<local-command-stdout>…</local-command-stdout>`.
    case userText(String)
    /// `control_request` `can_use_tool`: the CLI blocks until it gets a `control_response`.
    case permissionRequest(ClaudePermissionRequest)
    /// `control_response` to a request the host sent (e.g. `interrupt`).
    case controlResponse(requestID: String?, success: Bool, error: String?)
    /// `result`: the end of a turn.
    case result(ClaudeResult)
    /// Anything else (thinking blocks, other stream events, unknown types): ignored, kept raw.
    case other(type: String, raw: JSONValue)
    /// A line that is not a JSON object (logged and skipped).
    case notJSON(String)
}

public struct ClaudeToolResult: Sendable, Hashable {
    public var toolUseID: String
    /// The result as text: a string content as is, the `text` of block content joined with newlines.
    public var output: String
    public var isError: Bool

    public init(toolUseID: String, output: String, isError: Bool) {
        self.toolUseID = toolUseID
        self.output = output
        self.isError = isError
    }
}

public struct ClaudePermissionRequest: Sendable, Hashable {
    public var requestID: String
    public var toolName: String
    public var input: JSONValue
    public var toolUseID: String?
    /// `permission_suggestions` as sent (an array of PermissionUpdate objects), `[]` when absent.
    public var suggestions: JSONValue
    public var decisionReason: String?
    public var blockedPath: String?

    public init(
        requestID: String, toolName: String, input: JSONValue, toolUseID: String?, suggestions: JSONValue = .array([]), decisionReason: String? = nil,
        blockedPath: String? = nil
    ) {
        self.requestID = requestID
        self.toolName = toolName
        self.input = input
        self.toolUseID = toolUseID
        self.suggestions = suggestions
        self.decisionReason = decisionReason
        self.blockedPath = blockedPath
    }
}

public struct ClaudeResult: Sendable, Hashable {
    public var subtype: String
    public var isError: Bool
    public var sessionID: String?
    public var durationMs: Int?
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

    public init(
        subtype: String, isError: Bool, sessionID: String? = nil, durationMs: Int? = nil, totalCostUSD: Double? = nil, usage: TokenUsage = TokenUsage(),
        numTurns: Int? = nil, resultText: String? = nil, errors: [String] = [], stopReason: String? = nil, deniedTools: [String] = []
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
    }
}
